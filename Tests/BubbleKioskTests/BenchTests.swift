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
        let targets = json["targets"] as? [String: Bool] ?? [:]
        for key in ["full_redraw_le_1x_plain_compositor", "animated_le_half_memcpy"] {
            #expect(targets[key] != nil, "target \(key) missing")
        }
    }
}
