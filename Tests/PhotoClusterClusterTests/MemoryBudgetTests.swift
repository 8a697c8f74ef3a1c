import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// The worker's memory budget: photos admitted while their peaks fit, waiting in priority order
/// otherwise, leaving the wait when cancelled, and refused at once when alone too large.
final class MemoryBudgetTests: XCTestCase {
    private func budget(_ bytes: Int) -> MemoryBudget {
        MemoryBudget(limit: MemoryLimit(bytes: bytes, source: .option), reserveBytes: 0)
    }

    func testAPhotoThatFitsIsAdmittedAtOnceAndGivesItsBytesBack() {
        let budget = budget(100)
        guard case .admitted(let grant) = budget.admit(60, rank: 0, isCancelled: { false }) else { return XCTFail("not admitted") }
        XCTAssertFalse(grant.waited)
        XCTAssertEqual(budget.snapshot.inUseBytes, 60)
        budget.release(grant)
        XCTAssertEqual(budget.snapshot.inUseBytes, 0)
        XCTAssertEqual(budget.snapshot.peakInUseBytes, 60)
        XCTAssertEqual(budget.snapshot.waitsTotal, 0)
    }

    func testAPhotoOverTheWholeBudgetIsRefusedWithoutWaiting() {
        let budget = budget(100)
        XCTAssertEqual(budget.admit(101, rank: 2, isCancelled: { false }), .overBudget)
        XCTAssertEqual(budget.snapshot.refusalsTotal, 1)
        XCTAssertEqual(budget.snapshot.waitingPhotos, 0)
    }

    /// Visible photos go before prefetch ones, and those before the rest, whatever the order
    /// they came in.
    func testWaitingPhotosAreAdmittedInPriorityOrder() throws {
        let budget = budget(100)
        guard case .admitted(let held) = budget.admit(80, rank: 0, isCancelled: { false }) else { return XCTFail("not admitted") }
        let order = LockedBox<[String]>([])
        let grants = LockedBox<[String: MemoryBudget.Grant]>([:])
        let group = DispatchGroup()
        for (name, rank) in [("background", 0), ("prefetch", 1), ("visible", 2)] {
            group.enter()
            Thread.detachNewThread {
                // 60 each: one at a time fits.
                if case .admitted(let grant) = budget.admit(60, rank: rank, isCancelled: { false }) {
                    order.withLock { $0.append(name) }
                    grants.withLock { $0[name] = grant }
                }
                group.leave()
            }
            // Each waits before the next comes.
            XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == [0, 1, 2].firstIndex(of: rank)! + 1 })
        }
        var released = held
        for expected in [["visible"], ["visible", "prefetch"], ["visible", "prefetch", "background"]] {
            budget.release(released)
            XCTAssertTrue(eventually(timeout: 5) { order.withLock { $0.count } == expected.count })
            XCTAssertEqual(order.withLock { $0 }, expected)
            XCTAssertEqual(budget.snapshot.waitingPhotos, 3 - expected.count)
            released = try XCTUnwrap(grants.withLock { $0[expected.last!] })
        }
        budget.release(released)
        XCTAssertEqual(group.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(budget.snapshot.waitsTotal, 3)
        XCTAssertEqual(budget.snapshot.inUseBytes, 0)
        XCTAssertEqual(budget.snapshot.peakInUseBytes, 80)
    }

    /// A photo that comes into view while it waits moves ahead of the prefetch photo before it.
    func testAWaitingPhotoThatBecomesVisibleMovesAhead() throws {
        final class Band: MemoryPriority, @unchecked Sendable {
            let rank = LockedBox(0)
            var memoryRank: Int { rank.withLock { $0 } }
        }
        let budget = budget(100)
        guard case .admitted(let held) = budget.admit(80, rank: 0, isCancelled: { false }) else { return XCTFail("not admitted") }
        let order = LockedBox<[String]>([])
        let background = Band(), prefetch = Band()
        prefetch.rank.withLock { $0 = 1 }
        for (name, band) in [("was background", background), ("prefetch", prefetch)] {
            Thread.detachNewThread {
                if case .admitted(let grant) = budget.admit(60, rank: band.memoryRank, priority: band, isCancelled: { false }) {
                    order.withLock { $0.append(name) }
                    budget.release(grant)
                }
            }
            XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == (name == "prefetch" ? 2 : 1) })
        }
        background.rank.withLock { $0 = 2 }
        budget.reorder()
        budget.release(held)
        XCTAssertTrue(eventually(timeout: 5) { order.withLock { $0.count } == 2 })
        XCTAssertEqual(order.withLock { $0 }, ["was background", "prefetch"])
    }

    func testACancelledPhotoLeavesTheWaitAndTheNextOneMovesUp() {
        let budget = budget(100)
        guard case .admitted(let held) = budget.admit(70, rank: 0, isCancelled: { false }) else { return XCTFail("not admitted") }
        let cancelled = CancellationFlag()
        let first = LockedBox<MemoryBudget.Admission?>(nil)
        let second = LockedBox<MemoryBudget.Admission?>(nil)
        Thread.detachNewThread { let a = budget.admit(90, rank: 2, isCancelled: { cancelled.isRaised }); first.withLock { $0 = a } }
        XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == 1 })
        // 30 fits beside the 70, but only into room the first waiter (90) could not use: 100 − 90 = 10.
        Thread.detachNewThread { let a = budget.admit(30, rank: 0, isCancelled: { false }); second.withLock { $0 = a } }
        // A photo is counted as waiting only after `admit` found no room for it (under the lock), so
        // once both wait, the 30 has been refused the room: nothing more is in use.
        XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == 2 })
        XCTAssertEqual(budget.snapshot.inUseBytes, 70, "went ahead into the room the first waiter needs")
        XCTAssertNil(second.withLock { $0 }, "went ahead into the room the first waiter needs")
        cancelled.raise()
        budget.wakeWaiters()
        XCTAssertTrue(eventually(timeout: 5) { first.withLock { $0 } == .cancelled })
        XCTAssertTrue(eventually(timeout: 5) { second.withLock { $0 } != nil })
        if case .admitted(let grant)? = second.withLock({ $0 }) { XCTAssertTrue(grant.waited) } else { XCTFail("not admitted") }
        XCTAssertEqual(budget.snapshot.inUseBytes, 100)
        XCTAssertEqual(budget.snapshot.waitingPhotos, 0)
        budget.release(held)
    }

    /// A small photo may go ahead of a large waiting one into room the large one could not use
    /// anyway, so ordinary photos keep finishing while a large one waits, and the large one is
    /// not starved.
    func testASmallPhotoGoesAheadOfALargeWaitingOneOnlyIntoRoomItCannotUse() {
        let budget = budget(100)
        guard case .admitted(let held) = budget.admit(60, rank: 0, isCancelled: { false }) else { return XCTFail("not admitted") }
        let large = LockedBox<MemoryBudget.Admission?>(nil)
        Thread.detachNewThread { let a = budget.admit(60, rank: 2, isCancelled: { false }); large.withLock { $0 = a } }
        XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == 1 })
        // 100 − 60 = 40 of room the large one cannot use: two small ones of 20 pass, a third waits.
        guard case .admitted(let a) = budget.admit(20, rank: 0, isCancelled: { false }),
              case .admitted(let b) = budget.admit(20, rank: 0, isCancelled: { false }) else { return XCTFail("small photos waited") }
        let third = LockedBox<MemoryBudget.Admission?>(nil)
        Thread.detachNewThread { let r = budget.admit(20, rank: 0, isCancelled: { false }); third.withLock { $0 = r } }
        XCTAssertTrue(eventually(timeout: 5) { budget.snapshot.waitingPhotos == 2 })
        budget.release(held)
        XCTAssertTrue(eventually(timeout: 5) { large.withLock { $0 } != nil }, "the large photo was starved")
        XCTAssertNil(third.withLock { $0 })
        budget.release(a)
        XCTAssertTrue(eventually(timeout: 5) { third.withLock { $0 } != nil })
        budget.release(b)
    }

    // MARK: - Peaks

    private func chain(_ specs: String...) throws -> [ConfiguredFilter] {
        try specs.map { try FilterRegistry.builtIn.resolve($0) }
    }

    private func peak(_ header: ImageHeader, bytes: Int = 100, perPixel: Int = 0, _ filters: [ConfiguredFilter], format: ImageFormat? = nil, cacheEntryLimit: Int = 64 << 20) -> PhotoPeak {
        let reduces = filters.first?.stage is ReducingFilter
        return PhotoPeak.estimate(
            start: .encoded(header: header, byteCount: bytes, decoderBytesPerPixel: perPixel, upright: true), filters: filters,
            firstFilter: reduces ? 1 : 0, reducesOnLoad: reduces, fusedStart: max(reduces ? 1 : 0, filters.pointFilterTailStart),
            format: format ?? header.format, lossless: false, cacheEntryLimit: cacheEntryLimit)
    }

    /// The 69-byte photo that took a worker to 3.2 GB: its peak is known from its header.
    func testATinyPhotoResizedHugeAndSharpenedNeedsGigabytes() throws {
        let tiny = ImageHeader(format: .png, width: 1, height: 1)
        let result = peak(tiny, bytes: 69, try chain("resize:width=20000,height=20000", "sharpen:sigma=1"))
        XCTAssertEqual(result.output, ImageSize(width: 20000, height: 20000))
        XCTAssertGreaterThan(result.bytes, 3_000_000_000)
        XCTAssertEqual(result.largestImage, ImageSize(width: 20000, height: 20000))
        let reason = try XCTUnwrap(PhotoAdmission.refusal(peak: result, budget: (1_200 << 20, MemoryLimit(bytes: 1_536 << 20, source: .option)), maxOutputPixels: 100_000_000))
        XCTAssertTrue(reason.memory)
        XCTAssertTrue(reason.reason.hasPrefix("needs 3."), reason.reason)
        XCTAssertTrue(reason.reason.hasSuffix("over this worker's memory budget of 1.2 GiB (--memory-limit)"), reason.reason)
    }

    func testAResultOverTheOutputCapIsRefusedBeforeItIsComputed() throws {
        let result = peak(ImageHeader(format: .png, width: 1, height: 1), try chain("resize:width=20000,height=20000"))
        let reason = try XCTUnwrap(PhotoAdmission.refusal(peak: result, budget: nil, maxOutputPixels: 100_000_000))
        XCTAssertFalse(reason.memory)
        XCTAssertEqual(reason.reason, "its result would be 20000x20000 (400 MP), over this worker's limit of 100 MP (--max-output-pixels)")
        XCTAssertNil(PhotoAdmission.refusal(peak: result, budget: nil, maxOutputPixels: 400_000_000))
    }

    /// A lossless WebP is decoded whole into the decoder's own ARGB before it is RGBA: two images.
    func testALosslessWebPCostsTheDecodersOwnCopy() {
        let header = ImageHeader(format: .webp, width: 10000, height: 10000)
        let lossy = peak(header, [], format: .jpeg)
        let lossless = peak(header, perPixel: 4, [], format: .jpeg)
        XCTAssertEqual(lossless.step, "decode")
        XCTAssertGreaterThanOrEqual(lossless.bytes, 800_000_000)
        XCTAssertEqual(lossy.step, "encode")
        XCTAssertLessThan(lossy.bytes, 600_000_000)
    }

    func testTheDecoderCostIsReadFromTheBytes() throws {
        let image = try XCTUnwrap(RGBAImage(width: 8, height: 8))
        let lossless = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(quality: 10, lossless: true))
        let lossy = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(quality: 80))
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(lossless, format: .webp), 4)
        // Transparent: libwebp decodes a lossy file's alpha plane whole (a byte a pixel).
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(lossy, format: .webp), 1)
        let jpeg = try ImageCodec.encode(image, as: .jpeg, options: EncodeOptions())
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(jpeg, format: .jpeg), 0)
    }

    /// Point filters, blur and sharpen write over an image that is the photo's own; one the
    /// stage cache keeps is copied first.
    func testFiltersThatWorkInPlaceCostNoSecondImageUnlessTheCacheSharesTheirInput() throws {
        let header = ImageHeader(format: .jpeg, width: 4000, height: 3000)
        let image = 48_000_000
        let filters = try chain("sepia", "blur:sigma=1")
        let own = peak(header, filters, cacheEntryLimit: 0)
        let shared = peak(header, filters, cacheEntryLimit: 1 << 30)
        XCTAssertLessThan(own.bytes, 2 * image)
        XCTAssertGreaterThanOrEqual(shared.bytes, 2 * image)
        // A quarter turn always makes a new image, the cut of a crop too.
        let turned = peak(header, try chain("rotate:degrees=90", "sharpen"), cacheEntryLimit: 0)
        XCTAssertGreaterThanOrEqual(turned.bytes, 2 * image)
        XCTAssertEqual(turned.output, ImageSize(width: 3000, height: 4000))
        XCTAssertEqual(peak(header, try chain("crop:width=100,height=50")).output, ImageSize(width: 100, height: 50))
    }

    /// Shrink-on-load: a thumbnail of a large photo never holds the full-size image.
    func testAThumbnailDecodedSmallCostsTheThumbnailOnly() throws {
        let header = ImageHeader(format: .jpeg, width: 8000, height: 6000)
        let thumbnail = peak(header, try chain("resize:width=400,height=300"))
        XCTAssertLessThan(thumbnail.bytes, 8 << 20)
        XCTAssertEqual(thumbnail.output, ImageSize(width: 400, height: 300))
    }

    /// The decoder's target is what the peak counts: a JPEG at its DCT scale, a PNG boxed to
    /// 2.5× the output, a linear-light resize decoded whole.
    func testThePeakCountsWhatTheDecoderIsAskedToMake() throws {
        let jpeg = ImageHeader(format: .jpeg, width: 4032, height: 3024)
        XCTAssertEqual(peak(jpeg, try chain("thumbnail:width=512,height=512")).largestImage, ImageSize(width: 1008, height: 756))
        let png = ImageHeader(format: .png, width: 4032, height: 3024)
        XCTAssertEqual(peak(png, try chain("thumbnail:width=512,height=512")).largestImage, ImageSize(width: 1344, height: 1008))
        let linear = peak(jpeg, try chain("thumbnail:width=512,height=512,linear=1"))
        XCTAssertEqual(linear.largestImage, ImageSize(width: 4032, height: 3024))
        XCTAssertGreaterThan(linear.bytes, 4032 * 3024 * 4)
    }

    // MARK: - Limits

    private func fakeRoot(cgroup: String, files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("memlimit-\(UUID().uuidString.prefix(8))")
        for (path, text) in files.merging(["proc/self/cgroup": cgroup], uniquingKeysWith: { a, _ in a }) {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root.path
    }

    func testTheLimitComesFromTheLowestCgroupV1GroupOnTheWay() throws {
        let root = try fakeRoot(cgroup: "5:memory:/pods/worker\n4:cpu:/\n0::/\n", files: [
            "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
            "sys/fs/cgroup/memory/pods/memory.limit_in_bytes": "2147483648\n",
            "sys/fs/cgroup/memory/pods/worker/memory.limit_in_bytes": "1610612736\n",
        ])
        let limit = try XCTUnwrap(MemoryLimit.cgroupLimit(root: root))
        XCTAssertEqual(limit.bytes, 1_610_612_736)
        XCTAssertEqual(limit.source, .cgroupV1(root + "/sys/fs/cgroup/memory/pods/worker/memory.limit_in_bytes"))
        XCTAssertTrue(limit.description.hasPrefix("1.5 GiB from cgroup v1 "), limit.description)
    }

    func testTheLimitComesFromCgroupV2MemoryMax() throws {
        let root = try fakeRoot(cgroup: "0::/kubepods/pod1/worker\n", files: [
            "sys/fs/cgroup/kubepods/pod1/worker/memory.max": "max\n",
            "sys/fs/cgroup/kubepods/pod1/memory.max": "1073741824\n",
        ])
        XCTAssertEqual(MemoryLimit.cgroupLimit(root: root)?.bytes, 1 << 30)
    }

    func testWithoutACgroupLimitAShareOfPhysicalMemory() throws {
        let root = try fakeRoot(cgroup: "0::/\n", files: ["sys/fs/cgroup/memory.max": "max\n"])
        let limit = MemoryLimit.detect(root: root, physicalBytes: 10 << 30)
        XCTAssertEqual(limit.bytes, 8 << 30)
        XCTAssertEqual(limit.source, .physical(share: 0.8, physical: 10 << 30))
    }

    func testTheBudgetKeepsTheBaselineAndTheCacheOut() {
        let limit = MemoryLimit(bytes: 1_536 << 20, source: .option)
        let cache = MemoryBudget.cacheBytes(wanted: 256 << 20, limit: limit.bytes)
        XCTAssertEqual(cache, 256 << 20)
        XCTAssertEqual(MemoryBudget(limit: limit, cacheBytes: cache).bytes, (1_536 - 128 - 256) << 20)
        // A small limit lowers the cache rather than leave photos nothing.
        XCTAssertEqual(MemoryBudget.cacheBytes(wanted: 256 << 20, limit: 512 << 20), 96 << 20)
    }
}
