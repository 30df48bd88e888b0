import Foundation
import Testing

/// `bench --json` keeps its keys, and its layered round really ran the layers.
@Suite struct BenchTests {
    @Test func jsonHasEveryFigureAndTheLayersDidTheirWork() throws {
        let r = try CommandRunner.run(["bench", "--size", "480x320", "--bubbles", "6", "--frames", "5", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        for key in ["full_redraw_ms", "animated_ms", "idle_ms", "naive_ms", "memcpy_ms", "input_latency_ms",
                    "sound_event_to_write_ms", "frame_bare_ms", "frame_with_layers_ms", "mirror_full_ms", "mirror_animated_ms",
                    "plain_compositor_ms", "full_redraw_x_memcpy", "full_redraw_x_plain_compositor", "animated_x_memcpy",
                    "targets"] {
            #expect(json[key] != nil, "\(key) missing")
        }
        let pops = json["layers_pops"] as? Int ?? 0
        // The recorded round pops every bubble of a 480x320 round, each running a hook.
        #expect(pops >= 5, "\(json)")
        #expect((json["layers_hooks_started"] as? Int ?? 0) >= pops, "\(json)")
        #expect((json["layers_sounds_started"] as? Int ?? 0) >= 1, "\(json)")
        #expect((json["layers_frames"] as? Int ?? 0) > 10)
        // A small panel's targets: the for 800x480 and 1024x600.
        let targets = json["targets"] as? [String: Bool] ?? [:]
        for key in ["full_redraw_le_4x_memcpy", "animated_le_2x_memcpy", "idle_draws_nothing", "first_frame_le_50ms",
                    "idle_start_screen_le_1_frame_1_wakeup_a_minute", "peak_rss_le_40mb", "mqtt_flood_changes_nothing"] {
            #expect(targets[key] != nil, "target \(key) missing: \(targets)")
        }
        #expect(targets["full_redraw_le_1x_plain_compositor"] == nil, "\(targets)")
        // The start screen at rest, on virtual time: the figures are exact.
        #expect((json["first_frame_ms"] as? Double ?? 0) > 0, "\(json)")
        #expect(json["idle_start_screen_minutes"] as? Int == 10, "\(json)")
        #expect((json["idle_start_screen_frames_per_minute"] as? Double ?? 9) <= 1, "\(json)")
        #expect((json["idle_start_screen_wakeups_per_minute"] as? Double ?? 9) <= 1, "\(json)")
        #expect(targets["idle_start_screen_le_1_frame_1_wakeup_a_minute"] == true, "\(targets)")
    }

    /// Each kind of case prints its own targets: the default screen's against the plain
    /// compositor, 4K's against memcpy, a screen of 400 bubbles' against 4x memcpy.
    @Test(arguments: [(["--size", "1366x768"], ["full_redraw_le_1x_plain_compositor", "animated_le_half_memcpy", "peak_rss_le_40mb"]),
                      (["--size", "3840x2160"], ["full_redraw_le_1x_memcpy"]),
                      (["--bubbles", "400"], ["full_redraw_le_4x_memcpy", "peak_rss_le_40mb"])])
    func eachCaseHasItsTargets(options: [String], expected: [String]) throws {
        let r = try CommandRunner.run(["bench", "--render-only", "--frames", "2", "--json"] + options)
        #expect(r.status == 0, "\(r.stderr)")
        let targets = try r.json()["targets"] as? [String: Bool] ?? [:]
        for key in expected + ["idle_draws_nothing", "first_frame_le_50ms"] {
            #expect(targets[key] != nil, "target \(key) missing: \(targets)")
        }
        #expect(targets["mqtt_flood_changes_nothing"] == nil && targets["animated_le_2x_memcpy"] == nil, "\(targets)")
    }
}
