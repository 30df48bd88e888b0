internal import CSndfile
import Glibc
import KioskCore

/// Why a sound file gave no sound.
public struct SoundFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public var description: String { "\(echoed(path, limit: 200)): \(reason)" }
}

/// Sound files decoded once by libsndfile (WAV, FLAC, Ogg Vorbis/Opus, MP3, AIFF, ...), at any
/// rate, mono or stereo, into clips at the mixer's rate.
public enum SoundDecoder {
    /// Longest sound accepted: effects are short, and this bounds the memory a wrong file takes.
    public static let maximumSeconds = 30.0
    /// Where `make sounds` output is installed and `auto` looks first.
    public static let installedDirectory = "/usr/share/bubble-kiosk/sounds"

    /// Decodes `path` (a regular file) and resamples it to 48 kHz stereo.
    public static func decode(path: String) throws(SoundFileError) -> SoundClip {
        let file: FileDescriptor
        do {
            file = try FileSystem.openRegularFile(path)
        } catch let error as SystemError {
            throw SoundFileError(path: path, reason: String(cString: strerror(error.errno)))
        } catch {
            throw SoundFileError(path: path, reason: "\(error)")
        }
        var info = SF_INFO()
        // libsndfile closes fd from here on (close_desc = 1), also when it fails.
        guard let file = sf_open_fd(file.release(), Int32(SFM_READ), &info, 1) else {
            throw SoundFileError(path: path, reason: "not a sound file libsndfile can decode (\(String(cString: sf_strerror(nil))))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels), rate = Int(info.samplerate)
        guard channels >= 1, channels <= 8, rate >= 4000, rate <= 384_000 else {
            throw SoundFileError(path: path, reason: "unusable format (\(channels) channels at \(rate) Hz)")
        }
        let limit = Int(maximumSeconds * Double(rate))
        // MP3 and some Ogg files report no length (or a guess): read until the end.
        var samples: [Float] = []
        var chunk = [Float](repeating: 0, count: 4096 * channels)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, 4096) }
            if n <= 0 { break }
            samples += chunk[0..<(Int(n) * channels)]
            if samples.count / channels > limit {
                throw SoundFileError(path: path, reason: "longer than \(Int(maximumSeconds)) s; sound effects should be short")
            }
        }
        if sf_error(file) != 0 {
            throw SoundFileError(path: path, reason: "cannot decode: \(String(cString: sf_strerror(file)))")
        }
        guard !samples.isEmpty else { throw SoundFileError(path: path, reason: "no sound in it (0 frames)") }
        return SoundClip(interleaved: samples, channels: channels, rate: rate)
    }

    /// The clip for `effect` as `settings` name it: `none` gives nil, `auto` the installed
    /// default (`installedDirectory/NAME.wav`) or, when that is missing or broken, the same
    /// sound synthesised in memory; a path its decoded file. Problems go to `problems`.
    public static func clip(for effect: SoundEffect, settings: SoundSettings,
                            installed: String = installedDirectory,
                            problems: inout [String]) -> SoundClip? {
        let file = settings.file(for: effect)
        switch file {
        case "none":
            return nil
        case "auto":
            let path = installed + "/" + effect.configName + ".wav"
            if FileSystem.exists(path), let clip = try? decode(path: path) { return clip }
            return SoundSynth.clip(for: effect)
        default:
            do {
                return try decode(path: file)
            } catch {
                problems.append("sounds.\(effect.configName): \(error); that sound stays silent")
                return nil
            }
        }
    }
}
