import CImageCodec

/// Runs one C codec call with a stack buffer for its message, throwing on failure.
enum CodecCall {
    static func check(_ call: (UnsafeMutablePointer<CChar>, Int) -> ic_status) throws {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(IC_MESSAGE_SIZE)) { buffer in
            let message = buffer.baseAddress!
            message[0] = 0
            let status = call(message, buffer.count)
            guard status != IC_OK else { return }
            throw ImageCodecError(status: status, message: String(cString: message))
        }
    }
}
