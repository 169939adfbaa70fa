import MatsiteCLI

/// The `matsite` executable: the command line lives in MatsiteCLI.
@main
enum MatsiteMain {
    static func main() async {
        await MatsiteCommand.start()
    }
}
