"""Issue 10, part 5: Player.remove() leaves nothing behind. A page creates and
removes a player 50 times; afterwards the document's and the window's event
listeners, and the renderer's node and listener counts after a garbage
collection, are where they were before (measured through the DevTools protocol)."""
from helpers import wait_state

CYCLE = """async (n) => {
    for (let i = 0; i < n; i++) {
        const root = document.createElement('div');
        root.setAttribute('aria-label', 'extra player');
        document.body.appendChild(root);
        // The embed flavour: it also listens to the window for postMessage commands.
        const player = new Matsite.Player(root, {manifestUrl: 'manifest.json', embed: true, autoplay: true});
        Matsite.players.push(player);
        await new Promise((done) => { player.once('ready', done); player.start(); });
        // Play a little, so the clock's animation frames and the crossfade run too.
        player.play();
        await new Promise((done) => setTimeout(done, 30));
        player.remove();
        root.remove();
    }
    return Matsite.players.length;
}"""


def counts(page, cdp):
    for _ in range(3):
        cdp.send("HeapProfiler.collectGarbage")
    dom = cdp.send("Memory.getDOMCounters")
    listeners = {}
    for name in ("window", "document"):
        obj = cdp.send("Runtime.evaluate", {"expression": name})["result"]["objectId"]
        found = cdp.send("DOMDebugger.getEventListeners", {"objectId": obj})["listeners"]
        listeners[name] = sorted(item["type"] for item in found)
    return {"nodes": dom["nodes"], "js_listeners": dom["jsEventListeners"], "documents": dom["documents"], **listeners}


def test_creating_and_removing_a_player_50_times_leaves_no_listener_or_node(tab, server):
    page = tab.page
    page.goto(server.url("radar/embed.html"))
    wait_state(page, "ready")
    cdp = page.context.new_cdp_session(page)
    # One cycle first: Leaflet installs a few document listeners once per page, for good.
    page.evaluate(CYCLE, 1)
    before = counts(page, cdp)
    remaining = page.evaluate(CYCLE, 50)
    # Blink lets go of a few nodes of the last removed player only after its pending
    # tasks ran: collect again until they are gone (a leak would be thousands of nodes).
    for _ in range(40):
        after = counts(page, cdp)
        if after["nodes"] <= before["nodes"]:
            break
        page.wait_for_timeout(250)
    assert remaining == 1, f"Matsite.players still holds {remaining} players (the page's own is 1)"
    assert after["window"] == before["window"], (before["window"], after["window"])
    assert after["document"] == before["document"], (before["document"], after["document"])
    assert after["js_listeners"] == before["js_listeners"], (before, after)
    assert after["nodes"] <= before["nodes"], (before, after)
    assert not tab.page_errors, tab.page_errors
    # The page's own player still works afterwards.
    page.get_by_role("button", name="Play", exact=True).click()
    wait_state(page, "playing")
