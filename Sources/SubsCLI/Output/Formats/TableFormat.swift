// `--format table` (the default): aligned columns and sentences, for people.

struct TableFormat: OutputFormatter {
    func render(_ result: CommandResult, style: OutputStyle) throws -> String {
        result.table(style)
    }
}
