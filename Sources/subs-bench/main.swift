// subs-bench: the benchmark of SPEC section 8 (`swift run -c release subs-bench [--quick]`).

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--relay" {
    exit(Runner.relay(Array(arguments.dropFirst())))
}
if arguments.contains("-h") || arguments.contains("--help") {
    print(BenchOptions.usage)
    exit(0)
}
do {
    try Benchmark(options: try BenchOptions.parse(arguments)).run()
} catch {
    fputs("subs-bench: \(error)\n", stderr)
    exit(1)
}
