import SubsCLI

let status = CLI.run(arguments: Array(CommandLine.arguments.dropFirst()), context: .process())
exitProcess(status)
