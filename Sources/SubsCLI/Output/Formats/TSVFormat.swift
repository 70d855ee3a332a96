// `--format tsv`: a header line, then tab-separated rows, values escaped.

struct TSVFormat: OutputFormatter {
    func render(_ result: CommandResult, style: OutputStyle) throws -> String {
        result.tsv.renderTSV()
    }
}
