public import Foundation

/// Executables SwiftPM builds beside the test bundle (`.build/debug/satchel`, the crash writers).
public enum BuiltExecutable {
    /// The executable `name` next to the tests, or nil when it was not built (`swift build --build-tests`).
    public static func find(_ name: String) -> URL? {
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            // macOS: .build/debug/SatchelPackageTests.xctest/Contents/MacOS → .build/debug
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return folders.map { $0.appendingPathComponent(name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
}
