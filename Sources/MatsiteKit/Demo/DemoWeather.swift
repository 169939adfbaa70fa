import Foundation

/// The demo's weather: a procedural field of place and time, so a demo loop moves with the
/// clock like a live feed. Storm cells are born, carried by one wind, grow, and decay; the
/// field at an instant is the same whichever build asks, so a window moved on by one step
/// shows the same pictures shifted by one frame, byte for byte.
///
/// Places are Web Mercator world coordinates `u` (west to east) and `v` (north to south),
/// both in [0, 1); times are seconds since 1970. The field repeats every whole world in `u`,
/// so a box crossing the antimeridian has no seam.
enum DemoWeather {
    /// Cells per world width on the lattice they are born on: about 170 pixels apart at zoom 6.
    static let lattice = 96
    /// The wind every cell is carried by, in world widths per second: about 45 pixels an
    /// hour at zoom 6, towards the east-north-east, as weather crosses North America.
    static let wind = (u: 6.6e-7, v: -3.8e-7)
    /// Cells are born at multiples of this (seconds), each slot with its own lattice.
    static let birthSpacing = 900.0
    /// The longest life of a cell, in seconds.
    static let longestLife = 9000.0
    /// How far (in world widths) a cell's own drift may take it from where the wind alone would.
    static let longestDrift = 0.15 * 7.6e-7 * longestLife

    /// One storm cell at one instant.
    struct Cell {
        /// Its centre, in world coordinates (`u` may lie outside [0, 1): add whole worlds).
        var u: Double
        var v: Double
        /// Semi-axes of its ellipse, in world widths.
        var major: Double
        var minor: Double
        /// Cosine and sine of the major axis's angle.
        var cos: Double
        var sin: Double
        /// Its strength now: about 1 is a heavy shower, above 1.2 hail.
        var strength: Double
        /// Its identity: lattice column (wrapped), row, and birth slot.
        var id: (i: Int, j: Int, slot: Int64)

        /// A repeatable number in [0, 1) for this cell and `channel`.
        func noise(_ channel: Int) -> Double { DemoWeather.noise(id.i, id.j, id.slot, channel) }
    }

    /// The cells alive at `time` whose ellipses may reach the box `u0...u1` x `v0...v1`.
    static func cells(u0: Double, u1: Double, v0: Double, v1: Double, time: Double) -> [Cell] {
        let g = Double(lattice)
        let reach = 0.9 / g + longestDrift
        var found: [Cell] = []
        let newest = Int64((time / birthSpacing).rounded(.down))
        let oldest = Int64(((time - longestLife) / birthSpacing).rounded(.up))
        guard oldest <= newest else { return [] }
        for slot in oldest...newest {
            let born = Double(slot) * birthSpacing
            // The lattice travels with the wind from each cell's birth on: it is fixed in
            // coordinates that move with the wind.
            let (qu, qv) = (wind.u * born, wind.v * born)
            let columns = Int(((u0 - reach - qu) * g).rounded(.down))...Int(((u1 + reach - qu) * g).rounded(.down))
            let rows = Int(((v0 - reach - qv) * g).rounded(.down))...Int(((v1 + reach - qv) * g).rounded(.down))
            for j in rows {
                for column in columns {
                    let i = ((column % lattice) + lattice) % lattice
                    guard let cell = cell(i: i, column: column, j: j, slot: slot, born: born, time: time) else { continue }
                    if cell.u + cell.major >= u0, cell.u - cell.major <= u1, cell.v + cell.major >= v0, cell.v - cell.major <= v1 {
                        found.append(cell)
                    }
                }
            }
        }
        return found
    }

    /// The field over a grid of `width` x `height` pixels of a world `world` pixels wide,
    /// whose top-left pixel is (`x0`, `y0`): 0 where dry, about 1 for heavy rain.
    static func field(x0: Int, y0: Int, width: Int, height: Int, world: Double, time: Double) -> [Float] {
        var field = [Float](repeating: 0, count: width * height)
        let u0 = Double(x0) / world, u1 = Double(x0 + width) / world
        let v0 = Double(y0) / world, v1 = Double(y0 + height) / world
        for cell in cells(u0: u0, u1: u1, v0: v0, v1: v1, time: time) {
            let px0 = max(0, Int(((cell.u - cell.major) * world).rounded(.down)) - x0)
            let px1 = min(width - 1, Int(((cell.u + cell.major) * world).rounded(.up)) - x0)
            let py0 = max(0, Int(((cell.v - cell.major) * world).rounded(.down)) - y0)
            let py1 = min(height - 1, Int(((cell.v + cell.major) * world).rounded(.up)) - y0)
            guard px0 <= px1, py0 <= py1 else { continue }
            for py in py0...py1 {
                let dv = (Double(y0 + py) + 0.5) / world - cell.v
                for px in px0...px1 {
                    let du = (Double(x0 + px) + 0.5) / world - cell.u
                    let along = (du * cell.cos + dv * cell.sin) / cell.major
                    let across = (dv * cell.cos - du * cell.sin) / cell.minor
                    let s = along * along + across * across
                    guard s < 1 else { continue }
                    field[py * width + px] += Float(cell.strength * (1 - s) * (1 - s))
                }
            }
        }
        // Radar echoes are ragged, not smooth: a texture that travels with the cells and
        // churns slowly.
        let g = Double(lattice)
        let (qu, qv) = (wind.u * time, wind.v * time)
        let churn = time / 1800
        for py in 0..<height {
            let v = (Double(y0 + py) + 0.5) / world - qv
            for px in 0..<width where field[py * width + px] > 0 {
                let u = (Double(x0 + px) + 0.5) / world - qu
                let n =
                    smoothNoise(u * g * 4, v * g * 4 + churn, period: lattice * 4, channel: 11) * 0.6
                    + smoothNoise(u * g * 11 + churn, v * g * 11, period: lattice * 11, channel: 12) * 0.4
                field[py * width + px] *= Float(0.5 + 0.85 * n)
            }
        }
        return field
    }
}

private extension DemoWeather {
    /// The cell born at lattice point (`i`, `j`) in `slot`, as it is at `time`; nil when none
    /// was born there or it has died by then.
    static func cell(i: Int, column: Int, j: Int, slot: Int64, born: Double, time: Double) -> Cell? {
        // Storms come in systems: a smooth field over the lattice, itself changing over
        // hours, makes births likelier in some regions than in others.
        let phase = born / 14400
        let epoch = Int64(phase.rounded(.down))
        let blend = phase - Double(epoch)
        let system =
            smoothNoise(Double(column) / 8, Double(j) / 8, period: lattice / 8, channel: 20 + Int(epoch % 1000)) * (1 - blend)
            + smoothNoise(Double(column) / 8, Double(j) / 8, period: lattice / 8, channel: 21 + Int(epoch % 1000)) * blend
        let chance = 0.03 + 0.17 * system * system
        guard noise(i, j, slot, 0) < chance else { return nil }
        let life = 3600 + 5400 * noise(i, j, slot, 1)
        let age = (time - born) / life
        guard age >= 0, age < 1 else { return nil }
        // Grows fast, decays slowly: highest a quarter of the way through its life.
        let envelope = pow(Foundation.sin(.pi * age.squareRoot()), 2)
        let g = Double(lattice)
        let drift = (u: (noise(i, j, slot, 2) - 0.5) * 0.3 * 7.6e-7, v: (noise(i, j, slot, 3) - 0.5) * 0.3 * 7.6e-7)
        let elapsed = time - born
        let size = (0.28 + 0.42 * noise(i, j, slot, 4)) / g * (0.55 + 0.45 * envelope)
        let stretch = 1 + 1.3 * noise(i, j, slot, 5)
        let angle = .pi * noise(i, j, slot, 6)
        return Cell(
            u: (Double(column) + noise(i, j, slot, 7)) / g + wind.u * born + (wind.u + drift.u) * elapsed,
            v: (Double(j) + noise(i, j, slot, 8)) / g + wind.v * born + (wind.v + drift.v) * elapsed,
            major: size * stretch.squareRoot(), minor: size / stretch.squareRoot(),
            cos: Foundation.cos(angle), sin: Foundation.sin(angle),
            strength: (0.55 + 0.8 * noise(i, j, slot, 9)) * envelope,
            id: (i, j, slot))
    }
}

extension DemoWeather {
    /// A repeatable pseudo-random number in [0, 1) for lattice point (`i`, `j`), birth slot
    /// and channel.
    static func noise(_ i: Int, _ j: Int, _ slot: Int64, _ channel: Int) -> Double {
        var h = UInt64(bitPattern: Int64(i)) &* 0x9E37_79B9_7F4A_7C15
        h ^= UInt64(bitPattern: Int64(j)) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= UInt64(bitPattern: slot) &* 0x27D4_EB2F_1656_67C5
        h ^= UInt64(channel) &* 0x1656_67B1_9E37_79F9
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return Double(h >> 11) / Double(1 << 53)
    }

    /// Value noise, smooth between lattice points, repeating every `period` in `x`.
    static func smoothNoise(_ x: Double, _ y: Double, period: Int, channel: Int) -> Double {
        let xf = x.rounded(.down), yf = y.rounded(.down)
        let fx = x - xf, fy = y - yf
        let sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy)
        let p = Int64(period)
        let x0 = Int(((Int64(xf) % p) + p) % p), x1 = (x0 + 1) % period, y0 = Int(yf), y1 = y0 + 1
        let a = noise(x0, y0, 0, channel), b = noise(x1, y0, 0, channel)
        let c = noise(x0, y1, 0, channel), d = noise(x1, y1, 0, channel)
        return (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy
    }
}
