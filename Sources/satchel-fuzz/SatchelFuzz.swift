import CSatchelFuzzer
import Foundation
import SatchelFuzzing

/// `satchel-fuzz`: Satchel's fuzz targets (docs/fuzzing.md).
///
///     satchel-fuzz list                          # the targets
///     satchel-fuzz seeds TARGET FOLDER           # writes the inputs that seed its corpus into FOLDER
///     satchel-fuzz max-length TARGET             # the largest input worth trying
///     satchel-fuzz replay TARGET FILE|FOLDER…    # runs inputs through a target's checks; exit 1 on a violation
///     satchel-fuzz smoke SECONDS [TARGET…]       # each target for SECONDS on mutated seeds, without libFuzzer
///
///     satchel-fuzz run TARGET [libFuzzer options and corpus folders]   # the builds scripts/fuzz makes only
///
/// `scripts/fuzz` builds it with libFuzzer's coverage and AddressSanitizer (`SATCHEL_FUZZ_BUILD=1`, see
/// Package.swift), and runs `run` with the target's corpus and dictionary.
@main
enum SatchelFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        let program = arguments.removeFirst()
        // libFuzzer runs the program again for some jobs (-minimize_crash, -fork) with its own options only: the
        // target comes from the environment then.
        if let name = ProcessInfo.processInfo.environment["SATCHEL_FUZZ_TARGET"],
            let target = FuzzTargets.named(name), arguments.first.map({ !commands.contains($0) }) ?? true
        {
            exit(run(target, program: program, options: arguments))
        }
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        switch command {
        case "list":
            for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
        case "max-length":
            guard let target = arguments.first.flatMap(FuzzTargets.named) else { usage() }
            print(target.maximumLength)
        case "run":
            guard let target = arguments.first.flatMap(FuzzTargets.named) else { usage() }
            exit(run(target, program: program, options: Array(arguments.dropFirst())))
        case "seeds":
            guard let target = arguments.first.flatMap(FuzzTargets.named), arguments.count == 2 else { usage() }
            exit(writeSeeds(of: target, into: URL(fileURLWithPath: arguments[1])))
        case "replay":
            guard let target = arguments.first.flatMap(FuzzTargets.named) else { usage() }
            exit(replay(target, paths: Array(arguments.dropFirst())))
        case "smoke":
            guard let seconds = arguments.first.flatMap(Double.init), seconds > 0 else { usage() }
            let names = arguments.dropFirst()
            guard names.allSatisfy({ FuzzTargets.named($0) != nil }) else { usage() }
            let targets = names.isEmpty ? FuzzTargets.all : names.compactMap(FuzzTargets.named)
            exit(smoke(targets, seconds: seconds))
        default:
            usage()
        }
    }

    static func usage() -> Never {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(
            Data(
                "usage: satchel-fuzz list | seeds TARGET FOLDER | max-length TARGET | replay TARGET PATH... | smoke SECONDS [TARGET...] | run TARGET [OPTIONS]\ntargets: \(names)\n"
                    .utf8))
        exit(2)
    }

    /// The package root, from this file's place in it.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Writes the target's seeds into `folder` (made when missing), one file each, numbered; prints how many.
    static func writeSeeds(of target: FuzzTarget, into folder: URL) -> Int32 {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let seeds = target.seeds(packageRoot: packageRoot)
            for (number, seed) in seeds.enumerated() {
                try Data(seed.bytes).write(to: folder.appendingPathComponent("\(number + 1)-\(seed.name)"))
            }
            print(seeds.count)
            return 0
        } catch {
            FileHandle.standardError.write(Data("satchel-fuzz: cannot write the seeds: \(error)\n".utf8))
            return 1
        }
    }

    /// Every file under `paths` through `target`'s checks; prints each violation.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("satchel-fuzz: no such file: \(path)\n".utf8))
                return 2
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { url.appendingPathComponent($0) }
            } else {
                files.append(url)
            }
        }
        var failures = 0
        for file in files {
            guard let data = try? Data(contentsOf: file) else { continue }
            do {
                try target.check(Array(data))
            } catch {
                failures += 1
                print("\(file.path): \(error)")
            }
        }
        print("\(target.name): \(files.count) inputs, \(failures) violations")
        return failures == 0 ? 0 : 1
    }

    /// Each target for `seconds` on its seeds and regressions, mutated (``FuzzMutator``, the same inputs every
    /// run): the test command's fuzzing phase, which needs no libFuzzer build. A violation is written to
    /// `Fuzz/Findings/TARGET/smoke-…` and the run goes on to the next target; a crash writes the input it crashed on
    /// to `Fuzz/Findings/TARGET/smoke-crash` first.
    static func smoke(_ targets: [FuzzTarget], seconds: Double) -> Int32 {
        var failed: [String] = []
        for target in targets {
            let findings = packageRoot.appendingPathComponent("Fuzz/Findings/\(target.name)")
            try? FileManager.default.createDirectory(at: findings, withIntermediateDirectories: true)
            guard satchel_fuzz_guard_install(findings.appendingPathComponent("smoke-crash").path) == 0 else {
                FileHandle.standardError.write(Data("satchel-fuzz: cannot install the crash guard\n".utf8))
                return 2
            }
            let seeds = (target.seeds(packageRoot: packageRoot) + target.regressions(packageRoot: packageRoot)).map(
                \.bytes)
            guard !seeds.isEmpty else {
                FileHandle.standardError.write(Data("satchel-fuzz: \(target.name) has no seeds\n".utf8))
                failed.append(target.name)
                continue
            }
            var mutator = FuzzMutator(
                seed: UInt64(target.name.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }.magnitude),
                dictionary: FuzzMutator.dictionary(
                    contentsOf: packageRoot.appendingPathComponent("Fuzz/Dictionaries/\(target.name).dict")))
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            var runs = 0
            var violation: FuzzViolation?
            var input: [UInt8] = []
            // The seeds as they are first, then mutations until the deadline.
            while violation == nil, runs < seeds.count || ContinuousClock.now < deadline {
                input =
                    runs < seeds.count
                    ? seeds[runs]
                    : mutator.mutate(
                        seeds[mutator.below(seeds.count)], other: seeds[mutator.below(seeds.count)],
                        maximumLength: target.maximumLength)
                input.withUnsafeBufferPointer { buffer in
                    satchel_fuzz_guard_input(buffer.baseAddress, buffer.count)
                    do throws(FuzzViolation) { try target.check(input) } catch { violation = error }
                    satchel_fuzz_guard_input(nil, 0)
                }
                runs += 1
            }
            if let violation {
                let file = findings.appendingPathComponent("smoke-\(runs)")
                try? Data(input).write(to: file)
                print("\(target.name): \(violation)\n  the input: \(file.path)")
                failed.append(target.name)
            } else {
                print("\(target.name): \(runs) inputs (\(seeds.count) seeds), no violation")
            }
        }
        if !failed.isEmpty { print("satchel-fuzz smoke: violations in \(failed.joined(separator: ", "))") }
        return failed.isEmpty ? 0 : 1
    }

    static let commands: Set = ["list", "seeds", "max-length", "replay", "smoke", "run"]

    /// The target libFuzzer's callback checks.
    nonisolated(unsafe) static var current: FuzzTarget?

    /// Hands control to libFuzzer with `options` (its flags and corpus folders), fuzzing `target`.
    static func run(_ target: FuzzTarget, program: String, options: [String]) -> Int32 {
        #if SATCHEL_LIBFUZZER
            current = target
            setenv("SATCHEL_FUZZ_TARGET", target.name, 1)
            var options = options
            if !options.contains(where: { $0.hasPrefix("-max_len=") }) {
                options.insert("-max_len=\(target.maximumLength)", at: 0)
            }
            var argv: [UnsafeMutablePointer<CChar>?] = ([program] + options).map { strdup($0) } + [nil]
            var argc = Int32(options.count + 1)
            return argv.withUnsafeMutableBufferPointer { buffer in
                var pointer = buffer.baseAddress
                return LLVMFuzzerRunDriver(&argc, &pointer) { data, size in
                    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
                    do {
                        try SatchelFuzz.current!.check(bytes)
                    } catch {
                        // A violation is a crash to libFuzzer: it saves the input and stops.
                        fatalError("\(error)")
                    }
                    return 0
                }
            }
        #else
            FileHandle.standardError.write(
                Data("satchel-fuzz: built without libFuzzer; run scripts/fuzz \(target.name)\n".utf8))
            return 2
        #endif
    }
}
