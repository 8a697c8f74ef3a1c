import Foundation
import PhotoClusterCore

/// A filter the test holds at a gate. It adds 1 to the red byte of the first half of the
/// pixels, signals `entered`, waits until `open` (or throws `FilterCancelled` when the photo is
/// cancelled), then does the second half. In place, or into a new image like most filters.
final class GateFilter: FilterStage, @unchecked Sendable {
    let descriptor: FilterDescriptor
    let inPlace: Bool
    let entered = DispatchSemaphore(value: 0)
    let open = LockedBox(false)
    /// How many photos left the gate because they were cancelled.
    let cancellations = LockedBox(0)

    init(name: String, inPlace: Bool) {
        descriptor = FilterDescriptor(name: name, version: "1", summary: "held at a gate by the test", parameters: [])
        self.inPlace = inPlace
    }

    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        guard let output = inPlace ? image : image.copy() else { throw FilterCancelled() }
        let half = output.pixelCount / 2
        for pixel in 0..<half { output.pixels[pixel * 4] &+= 1 }
        entered.signal()
        while !open.current {
            if isCancelled() {
                cancellations.withLock { $0 += 1 }
                throw FilterCancelled()
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        for pixel in half..<output.pixelCount { output.pixels[pixel * 4] &+= 1 }
        return output
    }
}
