// Shared by every harness (compiled into each fuzz binary by Fuzz/run.sh, same module as VinyardKit).

/// Bytes in memory as a ``ByteSource`` named `fuzz` (the library's ``MemoryByteSource``).
func FuzzMemorySource(_ bytes: [UInt8], chunk: Int = Int.max) -> MemoryByteSource {
    MemoryByteSource(bytes, name: "fuzz", chunk: chunk)
}

/// The fuzz input split into a control byte (options) and the payload.
struct FuzzInput {
    let control: UInt8
    let payload: [UInt8]

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let all = Array(UnsafeBufferPointer(start: data, count: size))
        control = all.first ?? 0
        payload = Array(all.dropFirst())
    }

    /// A read size for the source: small odd sizes half of the time, else everything at once.
    var readChunk: Int {
        let sizes = [1, 2, 3, 7, 64, 4096, Int.max, Int.max]
        return sizes[Int(control >> 5)]
    }

    var encoding: TextEncoding {
        switch control & 3 {
        case 1: .utf8
        case 2: .windows1252
        default: .auto
        }
    }
}

/// Reads every item; errors end the read (they are a valid outcome), crashes and hangs are not.
/// Stops after `limit` items so that a reader that never ends shows up as a failure.
@discardableResult
func drain(_ reader: some RecordReader, limit: Int = 1_000_000) -> [ReadItem] {
    var r = reader
    var items: [ReadItem] = []
    do {
        while let item = try r.next() {
            items.append(item)
            if items.count > limit { fatalError("reader did not end after \(limit) items") }
        }
    } catch {}
    return items
}
