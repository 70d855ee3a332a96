// Several customers under one command's remote budget (SPEC section 7 rev. 4, "Budgets"):
// those reached are answered, each one the budget (time or bytes) ended is left unanswered with
// that error (`StatusAnswer.unanswered`; the CLI says it and exits 69), and nothing is answered
// from part of a customer's data. A spent budget sends nothing more, so the rest end at once.

import SubsModel
import SubsRemote

enum BudgetedBatch {
    /// `answer` for each id in order, a customer's raw answers given back to the byte budget once
    /// its answer is made (a status is small beside them). When the budget leaves no customer
    /// answered, its first error is thrown: one USER fails as it always did.
    /// `releasing: false` for a source that keeps what it read (records, for the rules to run on).
    static func each<T>(_ ids: [ID], budget: RemoteBudget, releasing: Bool = true,
                        _ answer: (ID) throws -> T) throws -> (answers: [T?], unanswered: [Int: RemoteError]) {
        var answers: [T?] = []
        var unanswered: [Int: RemoteError] = [:]
        var first: RemoteError?
        for (index, id) in ids.enumerated() {
            do {
                answers.append(try releasing ? budget.releasing { try answer(id) } : answer(id))
            } catch let spent as RemoteError where spent.isBudgetSpent {
                first = first ?? spent
                unanswered[index] = spent
                answers.append(nil)
            }
        }
        if let first, unanswered.count == ids.count { throw first }
        return (answers, unanswered)
    }
}
