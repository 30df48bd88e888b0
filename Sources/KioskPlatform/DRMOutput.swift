internal import CDRM
import Glibc
import KioskCore

/// One screen a `DRMDisplay` drives: a connector on its own CRTC, in one mode, with two dumb
/// buffers flipped in turn. The main screen shows the game turned by the panel's rotation; a
/// mirror shows it scaled and letterboxed (`MirrorFit`).
///
/// The first present after `forget()` is a full mode set with the whole picture, so a screen
/// that came back, or a monitor that lost its signal, gets a fresh mode and picture.
final class DRMOutput {
    /// How the game's picture lands on this screen.
    enum Placement: Equatable {
        case turned(ScreenRotation)
        case mirrored(MirrorFit)
    }

    /// What a present did on this screen.
    enum Shown {
        /// A mode set: the picture is on screen now.
        case now
        /// A page flip was queued: its event says when it shows.
        case flipQueued
    }

    let connector: DRMConnector
    let crtcID: UInt32
    let mode: DRMMode
    let placement: Placement
    private let device: DRMDevice
    private let buffers: [DumbBuffer]
    /// Per buffer: game rectangles presented while it was not the one being drawn.
    private var missed: [[PixelRect]] = [[], []]
    /// The buffer on screen (or about to be, while a flip is pending).
    private(set) var front = 0
    private(set) var modeIsSet = false
    private var flipsWork = true
    private(set) var flipPendingSince: TimeStamp?
    /// Where the page-flip handler writes: this output's own, so flips of several CRTCs never mix.
    let flipResult: UnsafeMutablePointer<CDRM_flip_result>
    /// Switched off for sleep by DPMS, or (`crtcOff`) by disabling the CRTC.
    private(set) var poweredOff = false
    private var crtcOff = false

    /// Scales the picture onto a mirror.
    private let paintMirror: MirrorPainter

    /// - Parameters:
    ///   - flipResult: where this output's page-flip events land (the display's slot).
    ///   - paintMirror: scales the picture when the placement is a mirror.
    init(device: DRMDevice, connector: DRMConnector, crtcID: UInt32, mode: DRMMode, placement: Placement,
         flipResult: UnsafeMutablePointer<CDRM_flip_result>, paintMirror: @escaping MirrorPainter) throws {
        self.paintMirror = paintMirror
        self.device = device
        self.connector = connector
        self.crtcID = crtcID
        self.mode = mode
        self.placement = placement
        buffers = try (0..<2).map { _ in try DumbBuffer(device: device, width: mode.width, height: mode.height) }
        self.flipResult = flipResult
    }

    /// `HDMI-A-1:1920x1080@60`.
    var label: String { "\(connector.name):\(mode)" }

    /// The next present sets the mode and shows the whole picture.
    func forget() {
        modeIsSet = false
        front = 0
        missed = [[], []]
        flipPendingSince = nil
        flipResult.pointee.done = 0
    }

    /// Shows `damage` of `frame` (the game's picture); `bounds` is the whole picture. Throws
    /// `SystemError` (EACCES/EPERM when DRM master is gone, EBUSY for a transient refusal).
    func present(_ frame: PixelBuffer, damage: [PixelRect], copied: inout Int) throws -> Shown {
        let bounds = frame.bounds
        guard modeIsSet else {
            copy(frame, [bounds], into: buffers[0], copied: &copied)
            try setCrtc(buffers[0])
            modeIsSet = true
            crtcOff = false
            front = 0
            missed = [[], [bounds]]
            // The same picture once more from the other buffer with a page flip, and the mode
            // set's buffer written whole with the next frame: QEMU's standard VGA clears the
            // start of its video memory when the mode is set (bochs-drm does not ask it to keep
            // it), and when the CRTC was off (a screen plugged in) that is where this buffer
            // lies. A start screen that does not move would stay black until a touch.
            if flipsWork {
                copy(frame, [bounds], into: buffers[1], copied: &copied)
                if flip(to: 1) { missed = [[bounds], []] }
            }
            return .now
        }
        let back = 1 - front
        copy(frame, DamageRegion.merged(missed[back] + damage, within: bounds), into: buffers[back], copied: &copied)
        missed[back] = []
        missed[front] = DamageRegion.merged(missed[front] + damage, within: bounds)
        if flipsWork {
            if flip(to: back) { return .flipQueued }
            let code = errno
            let error = SystemError("drmModePageFlip", "\(device.path) \(connector.name) CRTC \(crtcID)", errno: code)
            // No master, or a transient refusal: the back buffer keeps the frame for the next try.
            if code == EACCES || code == EPERM || code == EBUSY { throw error }
            flipsWork = false
            device.log(.warning, "\(label): page flips refused (\(String(cString: strerror(code))), "
                + "errno \(code)); showing each frame with drmModeSetCrtc")
        }
        try setCrtc(buffers[back])
        front = back
        return .now
    }

    /// The flip event's time when this output's flip completed (and clears it).
    func takeCompletedFlip() -> TimeStamp? {
        guard flipResult.pointee.done != 0 else { return nil }
        flipResult.pointee.done = 0
        flipPendingSince = nil
        let r = flipResult.pointee
        // The kernel stamps the event with CLOCK_MONOTONIC, the clock the event loop uses.
        return TimeStamp(seconds: Int64(r.tv_sec), microseconds: Int64(r.tv_usec))
    }

    /// A flip event this late was lost (a driver bug): give up waiting, present again.
    func dropLateFlip(olderThan limit: Duration, now: TimeStamp) -> Bool {
        guard let since = flipPendingSince, now - since >= limit else { return false }
        flipPendingSince = nil
        return true
    }

    /// Some drivers refuse a mode set while a flip is queued: let it finish first (bounded).
    func waitForPendingFlip(limit: Duration) {
        guard flipPendingSince != nil else { return }
        var waited = Duration.zero
        var pfd = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        while flipResult.pointee.done == 0 && waited < limit {
            let ready = uninterrupted { poll(&pfd, 1, 50) }
            if ready < 0 {
                device.log(.error, "\(SystemError("poll", "\(label) waiting for a page flip"))")
                break
            }
            if ready > 0 && uninterrupted({ CDRM_handle_events(device.fd) }) < 0 && errno != EAGAIN {
                device.log(.error, "\(SystemError("drmHandleEvent", label))")
                break
            }
            waited += .milliseconds(50)
        }
        flipResult.pointee.done = 0
        flipPendingSince = nil
    }

    /// Switches the screen off (DPMS, else by disabling the CRTC) or on again.
    func setPower(on: Bool) throws {
        if !on {
            guard !poweredOff else { return }
            do {
                try device.setDPMS(.off, connectorID: connector.id)
            } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
                throw error
            } catch {
                try device.disableCrtc(crtcID)
                crtcOff = true
                modeIsSet = false
            }
            poweredOff = true
            return
        }
        guard poweredOff else { return }
        if crtcOff {
            // The next present sets the mode again.
            crtcOff = false
            forget()
        } else {
            try device.setDPMS(.on, connectorID: connector.id)
        }
        poweredOff = false
    }

    /// Forgets the power state after another program had the screen (it switched it on).
    func forgetPower() {
        poweredOff = false
        crtcOff = false
    }

    /// The buffer on screen, in the panel's orientation.
    func snapshot() -> PixelBuffer {
        let shot = PixelBuffer(size: mode.size)
        if modeIsSet { shot.copyRows(from: buffers[front].pixels, sourceStride: Int(buffers[front].pitch)) }
        return shot
    }

    /// Puts `saved` back on this output's CRTC (or turns it off if it was off).
    func restore(_ saved: DRMCrtcState) throws {
        if saved.bufferID != 0, let modeInfo = saved.mode {
            try device.setCrtc(saved.id, bufferID: saved.bufferID, x: saved.x, y: saved.y,
                               connectorID: connector.id, modeInfo: modeInfo)
        } else {
            try device.disableCrtc(saved.id)
        }
    }

    /// Queues a page flip to buffer `index`, which is then the front one; false (errno set) when
    /// the driver refuses.
    private func flip(to index: Int) -> Bool {
        guard CDRM_page_flip(device.fd, crtcID, buffers[index].fbID, flipResult) == 0 else { return false }
        front = index
        flipPendingSince = EventLoop.now()
        return true
    }

    private func setCrtc(_ buffer: DumbBuffer) throws {
        try device.setCrtc(crtcID, bufferID: buffer.fbID, connectorID: connector.id, mode: mode)
    }

    private func copy(_ frame: PixelBuffer, _ rects: [PixelRect], into buffer: DumbBuffer, copied: inout Int) {
        switch placement {
        case .turned(let turn):
            for rect in rects {
                turn.copy(rect, from: frame.pixels, sourceStride: frame.stride, logical: frame.size,
                          to: buffer.pixels, destinationStride: buffer.pitch)
                copied += rect.area * 4
            }
        case .mirrored(let fit):
            paintMirror(frame, rects, fit, buffer.pixels, buffer.pitch)
            copied += rects.compactMap(fit.targetRect(of:)).reduce(0) { $0 + $1.area * 4 }
        }
    }
}
