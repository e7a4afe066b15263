import CZlib

/// A zlib failure: the return code and zlib's message.
public struct ZlibError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var message: String
    public var description: String { "zlib \(code): \(message)" }
}

/// A gzip decoder for one member at a time (`inflate` with `MAX_WBITS + 16`). Owns its `z_stream`
/// and releases it in `deinit`. The corresponding C functions are `inflateInit2`, `inflate`,
/// `inflateReset` and `inflateEnd`.
final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>
    /// After a thrown error: how many input bytes of the failing call zlib had consumed.
    private(set) var consumedBeforeError = 0

    init() throws(ZlibError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = czlib_inflateInit2(stream, MAX_WBITS + 16)
        guard rc == Z_OK else {
            stream.deallocate()
            throw ZlibError(code: rc, message: "inflateInit2 failed")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new gzip member.
    func reset() { inflateReset(stream) }

    /// Inflates from `input` into `output`. Returns how many bytes were consumed and produced, and
    /// whether the member ended.
    func inflate(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws(ZlibError)
        -> (consumed: Int, produced: Int, end: Bool)
    {
        guard let outBase = output.baseAddress, output.count > 0 else { return (0, 0, false) }
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = outBase.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let rc = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch rc {
        case Z_OK: return (consumed, produced, false)
        case Z_STREAM_END: return (consumed, produced, true)
        case Z_BUF_ERROR: return (consumed, produced, false)  // no progress possible; caller feeds more
        default:
            consumedBeforeError = consumed
            let msg = stream.pointee.msg.map { String(cString: $0) } ?? "error \(rc)"
            throw ZlibError(code: rc, message: msg)
        }
    }
}

/// A gzip encoder (`deflate` with `MAX_WBITS + 16`). The corresponding C functions are
/// `deflateInit2`, `deflate` and `deflateEnd`.
final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int32 = 6) throws(ZlibError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = czlib_deflateInit2(stream, level, MAX_WBITS + 16)
        guard rc == Z_OK else {
            stream.deallocate()
            throw ZlibError(code: rc, message: "deflateInit2 failed")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` (all of it) and hands each compressed chunk to `emit`. With `finish`,
    /// the gzip trailer is written.
    func deflate(
        _ input: UnsafeRawBufferPointer, finish: Bool, scratch: UnsafeMutableRawBufferPointer,
        emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        guard let outBase = scratch.baseAddress else { return }
        while true {
            stream.pointee.next_out = outBase.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let rc = CZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 { try emit(UnsafeRawBufferPointer(rebasing: scratch[0..<produced])) }
            if rc == Z_STREAM_END { return }
            guard rc == Z_OK || rc == Z_BUF_ERROR else {
                throw ZlibError(code: rc, message: stream.pointee.msg.map { String(cString: $0) } ?? "deflate failed")
            }
            if !finish && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
        }
    }
}
