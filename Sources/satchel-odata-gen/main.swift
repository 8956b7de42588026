import Foundation
import SatchelODataGen
import SatchelOData

// satchel-odata-gen: the proxy generator alone, for the SwiftPM plugins and scripts.
do {
    let commandLine = try GeneratorCommandLine(arguments: Array(CommandLine.arguments.dropFirst()))
    let diagnostics = try commandLine.run()
    if !commandLine.quiet {
        for diagnostic in diagnostics where diagnostic.severity == .warning {
            FileHandle.standardError.write(Data("warning: \(diagnostic)\n".utf8))
        }
    }
} catch {
    FileHandle.standardError.write(Data("satchel-odata-gen: \(error.message)\n".utf8))
    exit(1)
}
