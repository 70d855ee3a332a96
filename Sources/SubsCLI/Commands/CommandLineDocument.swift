// `subs commands --json`: a whole command line as one JSON document, made from the same
// description help, the man page and the completions come from (CommandLineSpec, EnvironmentSpec,
// the config keys, ExitCode.meanings and each command's exit statuses, the providers' offers).
// Scripts and agents discover subs from it; docs/reference.md documents its shape.

import SubsJSON
import SubsModel
import SubsProviders

struct CommandLineDocument {
    /// Bumped when a key changes meaning or goes away (adding keys does not bump it).
    static let schemaVersion = 1

    let commandLine: CommandLineSpec

    init(_ commandLine: CommandLineSpec) {
        self.commandLine = commandLine
    }

    var document: JSONValue {
        .object(JSONObject([
            ("schemaVersion", .number(String(Self.schemaVersion))),
            ("name", .string("subs")),
            ("version", .string(commandLine.version)),
            ("abstract", .string(commandLine.abstract)),
            ("usage", .string(commandLine.topUsage)),
            ("globalOptions", .array(commandLine.globalOptions.filter { !$0.hidden }.map { option($0, global: true) })),
            ("commands", .array(commandLine.visibleCommands.map(command))),
            ("environment", .array(EnvironmentSpec.documented(in: commandLine).map(environment))),
            ("configKeys", .array(ConfigFile.keys.map(configKey))),
            ("exitStatuses", .array(ExitCode.meanings.map(exitStatus))),
            ("providers", .array(ProviderDescriptor.registered.map(provider))),
        ]))
    }

    func text(_ prose: String) -> JSONValue { .string(ProseMarkup.render(prose, flags: commandLine.flagNames)) }

    func option(_ spec: OptionSpec, global: Bool) -> JSONValue {
        .object(JSONObject([
            ("name", .string(spec.longName)),
            ("short", Documents.string(spec.shortName)),
            ("value", spec.isFlag ? .null : .string(spec.valueName)),
            ("kind", spec.kind.map { .string(Self.kindName($0)) } ?? .string("flag")),
            ("choices", spec.kind?.choices.map(Documents.strings) ?? .null),
            ("default", Documents.string(spec.defaultValue)),
            ("environment", Documents.string(spec.environment)),
            ("configKey", global && ConfigFile.keys.contains(spec.long) ? .string(spec.long) : .null),
            ("repeatable", .bool(spec.repeatable)),
            ("sameAs", spec.alias.map { .string("--\($0.long) \($0.value)") } ?? .null),
            ("help", text(HelpLayout.sentence(spec.help))),
        ]))
    }

    func command(_ spec: CommandSpec) -> JSONValue {
        .object(JSONObject([
            ("name", .string(spec.name.rawValue)),
            ("abstract", text(HelpLayout.sentence(spec.abstract))),
            ("discussion", spec.discussion.map(text) ?? .null),
            ("usage", .string(spec.usage)),
            ("arguments", .array(spec.arguments.map(argument))),
            ("options", .array(spec.options.filter { !$0.hidden }.map { option($0, global: false) })),
            ("exactlyOneOf", .array(spec.exactlyOneOf.map { Documents.strings($0.map { "--" + $0 }) })),
            ("exitStatuses", .array(spec.exitStatuses.all.map { code, meaning in
                .object(JSONObject([("code", .number(String(code.rawValue))), ("meaning", text(HelpLayout.sentence(meaning)))]))
            })),
            ("examples", .array(spec.examples.map {
                .object(JSONObject([("command", .string($0.command)), ("explanation", text(HelpLayout.sentence($0.explanation)))]))
            })),
        ]))
    }

    func argument(_ spec: ArgumentSpec) -> JSONValue {
        let arity: String
        switch spec.arity {
        case .one: arity = "one"
        case .optional: arity = "optional"
        case .oneOrMore: arity = "oneOrMore"
        }
        return .object(JSONObject([
            ("name", .string(spec.name)),
            ("kind", .string(Self.kindName(spec.kind))),
            ("choices", spec.kind.choices.map(Documents.strings) ?? .null),
            ("arity", .string(arity)),
            ("help", text(HelpLayout.sentence(spec.help))),
        ]))
    }

    func environment(_ variable: (name: String, help: String)) -> JSONValue {
        let options = (commandLine.globalOptions + commandLine.commands.flatMap(\.options))
            .filter { $0.environment == variable.name }.map(\.longName)
        return .object(JSONObject([
            ("name", .string(variable.name)),
            ("option", options.first.map { .string($0) } ?? .null),
            ("help", text(variable.help)),
        ]))
    }

    func configKey(_ key: String) -> JSONValue {
        let spec = commandLine.globalOption(named: key)
        return .object(JSONObject([
            ("key", .string(key)),
            ("option", .string("--" + key)),
            ("environment", Documents.string(spec?.environment)),
        ]))
    }

    func exitStatus(_ row: ExitCode.Meaning) -> JSONValue {
        .object(JSONObject([
            ("code", .number(String(row.code.rawValue))),
            ("names", Documents.strings(row.names)),
            ("summary", text(HelpLayout.sentence(row.summary))),
            ("meaning", text(row.meaning)),
        ]))
    }

    func provider(_ descriptor: ProviderDescriptor) -> JSONValue {
        .object(JSONObject([
            ("name", .string(descriptor.name)),
            ("defaultBaseURL", Documents.string(descriptor.defaultBaseURL)),
            ("needsRemote", .bool(descriptor.remoteRequired != nil)),
            ("needsKey", .bool(descriptor.needsKey)),
            ("settings", .array(descriptor.settings.map { setting in
                .object(JSONObject([
                    ("option", Documents.string(setting.option.map { "--" + $0 })),
                    ("environment", .string(setting.environment)),
                    ("choices", setting.choices.map(Documents.strings) ?? .null),
                    ("default", Documents.string(setting.defaultValue)),
                    ("help", text(setting.help)),
                ]))
            })),
            ("apis", .array(descriptor.offers.map(api))),
        ]))
    }

    func api(_ offer: APIOffer) -> JSONValue {
        var kinds: [String] = []
        if offer.searchableKinds.contains(.ids) { kinds.append("id") }
        if offer.searchableKinds.contains(.emails) { kinds.append("email") }
        if offer.searchableKinds.contains(.transactions) { kinds.append("transaction") }
        if offer.searchableKinds.contains(.attributes) { kinds.append("attribute") }
        return .object(JSONObject([
            ("title", .string(offer.api.title)),
            ("baseURL", .string(offer.api.baseURL)),
            ("selectedWith", text(offer.api.selectedWith)),
            ("offers", .object(JSONObject([("check", .bool(true))] + SourceOperation.allCases.map {
                ($0.rawValue, .bool(offer.capabilities.contains($0.capability)))
            }))),
            ("atReplaysRecords", .bool(offer.capabilities.contains(.evaluationAtAnyInstant))),
            ("findBy", Documents.strings(kinds)),
            ("notOffered", .array(offer.refusals.map { refusal in
                .object(JSONObject([
                    ("operation", .string(refusal.operation.rawValue)),
                    ("exitStatus", .number(String(ExitCode.usage.rawValue))),
                    ("message", text(refusal.why)),
                ]))
            })),
        ]))
    }

    static func kindName(_ kind: ValueKind) -> String {
        switch kind {
        case .text, .nonEmptyText: return "text"
        case .file: return "file"
        case .url: return "url"
        case .date: return "date"
        case .duration: return "duration"
        case .count: return "count"
        case .seconds: return "seconds"
        case .bytes: return "bytes"
        case .choice: return "choice"
        case .customer: return "customer"
        case .entitlement: return "entitlement"
        case .hostPort: return "hostPort"
        case .command: return "command"
        }
    }
}
