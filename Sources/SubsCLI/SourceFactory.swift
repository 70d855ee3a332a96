// The one place that turns the options into a source: the local store today; each remote
// provider is one more case here and a source type in SubsKit — no command file changes.

import SubsKit

enum SourceFactory {
    static func make(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        if let override = context.sourceOverride { return try override() }
        if invocation.global.remote != nil {
            throw CommandFailure(.unavailable, "--remote is not available yet in this version of subs; use a local --store")
        }
        return RecordSource(records: LocalStore(path: Commands.storePath(invocation, context),
                                                lockTimeout: invocation.global.lockTimeout),
                            clock: context.clock)
    }
}
