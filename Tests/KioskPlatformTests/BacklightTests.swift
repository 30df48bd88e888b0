import Glibc
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskPlatform

/// `Backlight` on a temporary directory holding the files of a /sys/class/backlight device.
@Suite struct BacklightDeviceTests {
    /// A device directory `NAME` in a fresh class directory.
    static func device(_ name: String = "rpi_backlight", maximum: String? = "255\n", brightness: String = "200\n",
                       power: String? = "0\n") -> (classDirectory: TemporaryDirectory, path: String) {
        let classDirectory = TemporaryDirectory("backlight-tests")
        let path = classDirectory.path + "/" + name
        mkdir(path, 0o755)
        if let maximum { writeFile(path + "/max_brightness", maximum, mode: 0o444) }
        writeFile(path + "/brightness", brightness)
        writeFile(path + "/actual_brightness", brightness, mode: 0o444)
        if let power { writeFile(path + "/bl_power", power) }
        return (classDirectory, path)
    }

    @Test func readsTheMaximumAndLevelAndWritesInPlace() throws {
        let (keep, path) = Self.device()
        let backlight = try Backlight(directory: path)
        #expect(backlight.maximum == 255 && backlight.hasPower && backlight.name == "rpi_backlight")
        #expect(try backlight.brightness() == 200)
        #expect(try backlight.power() == true)
        try backlight.setBrightness(51)
        #expect(try FileSystem.readText(path + "/brightness") == "51\n")
        try backlight.setBrightness(9999)
        #expect(try FileSystem.readText(path + "/brightness") == "255\n", "clamped to max_brightness")
        try backlight.setPower(on: false)
        #expect(try FileSystem.readText(path + "/bl_power") == "4\n")
        #expect(try backlight.power() == false)
        try backlight.setPower(on: true)
        #expect(try FileSystem.readText(path + "/bl_power") == "0\n")
        // In place: the same inode, no temporary file beside it.
        #expect(try FileSystem.listDirectory(path) == ["actual_brightness", "bl_power", "brightness", "max_brightness"])
        withExtendedLifetime(keep) {}
    }

    @Test func withoutBlPowerThePowerIsLeftAlone() throws {
        let (keep, path) = Self.device(power: nil)
        let backlight = try Backlight(directory: path)
        #expect(!backlight.hasPower)
        #expect(try backlight.power() == nil)
        try backlight.setPower(on: false)
        #expect(!FileSystem.exists(path + "/bl_power"))
        withExtendedLifetime(keep) {}
    }

    @Test func aMissingMaximumIsASystemErrorNamingTheFile() throws {
        let (keep, path) = Self.device(maximum: nil)
        do {
            _ = try Backlight(directory: path)
            Issue.record("opened a device without max_brightness")
        } catch let error as SystemError {
            #expect(error.errno == ENOENT && error.context == path + "/max_brightness")
        }
        withExtendedLifetime(keep) {}
    }

    @Test(arguments: ["garbage\n", "0\n", "-5\n", "", "12abc\n", "99999999999999999999999\n", "4294967296\n"])
    func garbageInTheMaximumIsRefused(_ text: String) throws {
        let (keep, path) = Self.device(maximum: text)
        #expect(throws: BacklightError.self) { _ = try Backlight(directory: path) }
        do { _ = try Backlight(directory: path) } catch {
            #expect("\(error)".hasPrefix(path + "/max_brightness: expected a whole number from 1 to 4294967295, got '"), "\(error)")
        }
        withExtendedLifetime(keep) {}
    }

    @Test func theExtremeMaximaWork() throws {
        for maximum in ["1", "65535", "4294967295"] {
            let (keep, path) = Self.device(maximum: maximum + "\n", brightness: "1\n")
            #expect(try Backlight(directory: path).maximum == Int(maximum)!)
            withExtendedLifetime(keep) {}
        }
    }

    /// A file nobody may write: the error carries EACCES and the path, and says how to fix it.
    @Test func anUnwritableFileIsAnErrorWithErrnoPathAndRemedy() throws {
        let (keep, path) = Self.device()
        makeUnwritable(path + "/brightness")
        let backlight = try Backlight(directory: path)
        do {
            try backlight.setBrightness(10)
            Issue.record("wrote an unwritable file")
        } catch let error as SystemError {
            #expect(error.errno == EACCES && error.context == path + "/brightness", "\(error)")
            #expect(backlight.remedy(for: error).contains("udev rule 60-bubble-kiosk-backlight.rules"))
            #expect(backlight.remedy(for: error).contains("video"))
        }
        let readOnly = SystemError("open", path + "/bl_power", errno: EROFS)
        #expect(backlight.remedy(for: readOnly).contains("ReadWritePaths=-\(path)/brightness -\(path)/bl_power"))
        #expect(backlight.remedy(for: readOnly).contains("/sys/devices"))
        #expect(throws: OutputRefusal.self) { try OutputFile.writeInPlace(path, [0x31]) }
        withExtendedLifetime(keep) {}
    }

    @Test func locatesAutoANameOrADirectory() throws {
        let (keep, path) = Self.device("10-0045")
        mkdir(keep.path + "/rpi_backlight", 0o755)
        #expect(Backlight.locate(.auto, classDirectory: keep.path).directory == path, "the first by name")
        #expect(Backlight.locate(.named("10-0045"), classDirectory: keep.path).directory == path)
        #expect(Backlight.locate(.directory(path)).directory == path)
        #expect(Backlight.locate(.none, classDirectory: keep.path).directory == nil)
        let missing = Backlight.locate(.named("dsi-panel"), classDirectory: keep.path)
        #expect(missing.directory == nil && missing.note?.0 == .warning)
        #expect(missing.note?.1.contains("no \(keep.path)/dsi-panel") == true)
        #expect(missing.note?.1.contains("there is 10-0045, rpi_backlight") == true, "\(missing.note?.1 ?? "")")
        let nowhere = Backlight.locate(.auto, classDirectory: keep.path + "/nowhere")
        #expect(nowhere.directory == nil && nowhere.note?.0 == .info)
        withExtendedLifetime(keep) {}
    }
}
