/// Messages, warnings and progress on standard error, written so that a failed write is ignored:
/// `FileHandle.standardError.write(_:)` traps when the write fails, so a run with standard error
/// closed (`2>&-`) or full (`2>/dev/full`) crashed (exit 132) after its work was done, an import
/// after its commit (found by audit). What cannot be written there is lost; the exit status and
/// the outputs are the run's own. (A closed pipe still ends the run with SIGPIPE, exit 141, as on
/// standard output.)
public enum StandardError {
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { try? FileByteSink.writeAll(UnsafeRawBufferPointer($0), to: 2, name: "standard error") }
    }
}
