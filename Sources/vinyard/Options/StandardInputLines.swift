import Foundation
import VinyardKit

/// Standard input's lines, each at most `limit` bytes: a longer line is a malformed-input error
/// (exit 65). `readLine()` held a whole line, however long: `decode -` on a stream without line
/// ends (`/dev/zero`) allocated gigabytes and aborted (an audit).
struct StandardInputLines {
    let limit: Int
    /// What a line holds, for the error message (`a VIN`).
    let holding: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private(set) var lineNumber = 0

    init(limit: Int, holding: String) {
        self.limit = limit
        self.holding = holding
    }

    /// The next line without its line end (a CR before the LF stays), or nil at the end of input.
    mutating func next() throws -> String? {
        var scanned = start
        while true {
            if let end = buffer[scanned...].firstIndex(of: 0x0A) {
                lineNumber += 1
                try check(end - start)
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = end + 1
                return line
            }
            scanned = buffer.count
            if buffer.count - start > limit {
                lineNumber += 1
                try check(buffer.count - start)
            }
            if eof {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                scanned -= start
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw VinyardError(.io, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if n == 0 { eof = true } else { buffer.append(contentsOf: chunk[..<n]) }
        }
    }

    private func check(_ length: Int) throws {
        guard length > limit else { return }
        throw VinyardError(
            .malformedInput,
            "standard input line \(lineNumber) is longer than \(limit) bytes; each line holds \(holding)")
    }
}
