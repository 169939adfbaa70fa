import Foundation
import Testing

@testable import MatsiteKit

@Suite("System calls")
struct SystemCallTests {
    @Test("a failed call throws what matsite was doing, the call and errno")
    func failure() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-syscall-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("a file".utf8).write(to: root)
        let path = root.path + "/below/a/file.png"
        let error = #expect(throws: SystemCallError.self) { try FileWrite.write([UInt8]([1, 2, 3]), to: path) }
        #expect(error?.errno == ENOTDIR && error?.call == "open")
        #expect(error?.description == "cannot write \(path): \(String(cString: strerror(ENOTDIR)))")
    }

    @Test("a call a signal interrupted (EINTR) is made again")
    func retriesOnEINTR() throws {
        var calls = 0
        let result = try systemCall("read", "cannot read") { () -> Int in
            calls += 1
            if calls == 1 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 2)
    }

    @Test("a file is written whole and hashed back with its size")
    func writeAndHash() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-syscall-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try FileWrite.write(bytes, to: file)
        let (hex, size) = try FileHash.sha256(of: file)
        #expect(size == bytes.count && hex == SHA256.hex(of: bytes))
        let missing = file.appendingPathExtension("gone")
        let error = #expect(throws: SystemCallError.self) { try FileHash.sha256(of: missing) }
        #expect(error?.errno == ENOENT && error?.description.hasPrefix("cannot read back \(missing.path): ") == true)
    }
}
