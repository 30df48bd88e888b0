// swift-tools-version:6.0
import PackageDescription

// The product's modules do without the implicit `import _StringProcessing` (the regex engine):
// the stdlib archive links whole, so one `String.contains(String)` from it brought 1.3 MB of
// regex parser and tables into the kiosk binary. Without the import, such a call does not compile.
// In a release build public symbols are not kept for their own sake (Swift marks them used, so
// that the linker's --gc-sections could not drop any), and each function has its own section:
// what nothing calls goes, 0.5 MB of code and unwind tables for the modules' API the tests use.
let lean: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"]),
    .unsafeFlags(["-Xfrontend", "-internalize-at-link", "-Xfrontend", "-function-sections"], .when(configuration: .release)),
]
// Modules off the frame path (devices, layers, scores, the runtime's plumbing, the commands) are
// optimised for size: -Osize took 0.1 MB off them where the renderer and the game keep -O.
let leanCold: [SwiftSetting] = lean + [.unsafeFlags(["-Osize"], .when(configuration: .release))]

// The kiosk's release link: lld packs the 21,000 relative relocations of a position-independent
// binary into a few KB (DT_RELR, glibc 2.36 and newer: Debian 12 and 13), where gold's table
// took 0.5 MB; and the binary exports no symbols (the static stdlib's link file asks for
// -export-dynamic, which put every public symbol of ours, 0.7 MB of names, in the dynamic table:
// nothing looks them up, and a stripped binary's crash report names only those anyway); and
// identical functions are kept once (--icf=all: 0.27 MB of Swift's specialised generics and
// thunks that compile to the same bytes; nothing in the kiosk compares function addresses).
let leanLink = ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic", "-Xlinker", "--icf=all"]

// Dependencies run one way: executable -> runtime -> layers -> platform, render -> core.
// KioskCore is plain Swift (no C imports) so tests drive it without any device.
let package = Package(
    name: "bubble-kiosk",
    products: [
        .executable(name: "bubble-kiosk", targets: ["BubbleKiosk"]),
        // The developer's window on a desktop (SDL2); the kiosk binary never links SDL.
        .executable(name: "bubble-kiosk-desktop", targets: ["BubbleKioskDesktop"]),
    ],
    targets: [
        .target(name: "KioskCore", swiftSettings: lean),
        // C libraries stay at the edges: thin system-library targets, Swift above them.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // Text: Pango lays it out (HarfBuzz shaping, fontconfig fallback) and draws it with cairo.
        .systemLibrary(name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev"])]),
        .systemLibrary(name: "CPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .target(name: "CLinux"),
        // The fleet's MQTT connection (libmosquitto, driven by a worker thread of ours), and
        // OpenSSL under it (the TLS context the connection hands it, to learn why a broker's
        // certificate was refused). Headers only, no pkgConfig: nothing links them, fleet control
        // loads them when it first connects (CMosquitto.h), so a kiosk without it never maps them.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev", "libssl-dev"])]),
        // High scores and play statistics: SQLite behind a writer thread.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "KioskRender", dependencies: ["KioskCore", "CCairo", "CPango", "CPixman", "CLinux"], swiftSettings: lean),
        // The system: devices, the loop, files, processes, threads. Neither cairo nor pixman.
        .target(name: "KioskPlatform", dependencies: ["KioskCore", "CLinux", "CEvdev", "CDRM", "CUdev", "CSystemd", "CALSA", "CSndfile", "CMosquitto"], swiftSettings: leanCold),
        // What plugs into the runtime (sounds, hooks, metrics, the backlight, fleet control) and
        // the protocol it plugs in by.
        .target(name: "KioskLayers", dependencies: ["KioskCore", "KioskRender", "KioskPlatform"], swiftSettings: leanCold),
        .target(name: "KioskScores", dependencies: ["KioskCore", "KioskPlatform", "KioskLayers", "CSQLite"], swiftSettings: leanCold),
        // The live kiosk as a library: the loop's work, signals, reload, VT and display loss.
        .target(name: "KioskRuntime", dependencies: ["KioskCore", "KioskRender", "KioskPlatform", "KioskLayers"], swiftSettings: leanCold),
        // The commands (argument parsing, backend wiring) as a library both executables link;
        // its sources stay in Sources/BubbleKiosk.
        .target(
            name: "KioskCommands",
            dependencies: ["KioskCore", "KioskRender", "KioskPlatform", "KioskLayers", "KioskRuntime", "KioskScores"],
            path: "Sources/BubbleKiosk",
            swiftSettings: leanCold
        ),
        .executableTarget(
            name: "BubbleKiosk", dependencies: ["KioskCommands"], path: "Sources/BubbleKioskMain", swiftSettings: lean,
            linkerSettings: [.unsafeFlags(leanLink, .when(configuration: .release))]
        ),
        // Desktop: a window and mouse/touch through SDL2 (X11 or Wayland), for developers.
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .target(name: "KioskDesktop", dependencies: ["KioskCore", "KioskPlatform", "CSDL2"], swiftSettings: lean),
        .executableTarget(name: "BubbleKioskDesktop", dependencies: ["KioskCommands", "KioskDesktop"], swiftSettings: lean),
        // What the test targets share: fixture builders, temporary folders and file helpers,
        // the waits (eventually within a bound, never a bare sleep) and a stopped wall clock;
        // linked into tests only, never into a product.
        .target(name: "KioskTestSupport", dependencies: ["KioskCore"], path: "Tests/Support"),
        .testTarget(
            name: "KioskCoreTests",
            dependencies: ["KioskCore", "KioskTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "KioskRenderTests",
            dependencies: ["KioskRender", "KioskCore", "KioskTestSupport"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "KioskPlatformTests",
            dependencies: ["KioskPlatform", "KioskRender", "KioskCore", "CSndfile", "KioskTestSupport"]
        ),
        .testTarget(
            name: "KioskRuntimeTests",
            dependencies: ["KioskRuntime", "KioskLayers", "KioskPlatform", "KioskRender", "KioskCore", "KioskScores", "KioskTestSupport"]
        ),
        .testTarget(
            name: "KioskScoresTests",
            dependencies: ["KioskScores", "KioskRuntime", "KioskLayers", "KioskPlatform", "KioskCore", "CSQLite", "KioskTestSupport"]
        ),
        .testTarget(
            name: "BubbleKioskTests",
            dependencies: ["KioskCore", "KioskRender", "KioskTestSupport"]
        ),
    ]
)
