// Reading a local store: one strict scan of all of its bytes, then materialising only the
// catalog and the customer records asked for.

import SubsJSON
import SubsModel

/// A scanned, JSON-valid store held in memory (mapped), with the spans of what was asked for.
package struct ScannedStore {
    let path: String
    package let file: MappedFile
    let index: StoreIndexVisitor

    var bytes: UnsafeRawBufferPointer { file.bytes }

    /// Maps and validates the whole file as strict JSON; notes the spans of `ids` (by key or alias).
    /// With `decodeEarly`, the customers found are decoded during the scan (`index.early`);
    /// with `copyPrefix`, the part of the store before them is copied during the scan
    /// (`index.prefix`, which the caller finishes). `regularOnly`: see `MappedFile`.
    static func scan(path: String, ids: [ID], collectAll: Bool = false, decodeEarly: Bool = false,
                     regularOnly: Bool = false,
                     copyPrefix: ((MappedFile) throws -> PrefixCopier)? = nil) throws -> ScannedStore {
        let file = try MappedFile(path: path, regularOnly: regularOnly)
        let early = decodeEarly ? EarlyDecoder(file: file) : nil
        let prefix = try copyPrefix?(file)
        var visitor = StoreIndexVisitor(buffer: file.bytes, requested: RequestedIds(ids), collectAll: collectAll,
                                        scanned: { file.release(upTo: $0) }, early: early, prefix: prefix)
        // Whatever happens, the decoding under way ends before the mapping can go.
        defer { _ = early?.finish() }
        do {
            try JSON.scan(file.bytes, visitor: &visitor)
            try file.verifyUnchanged()
        } catch {
            // The copy ends (its thread holds the temporary file) before the error goes up.
            _ = try? prefix?.finish()
            // Zeros where a truncation took pages away make a syntax error: say what happened.
            try file.verifyUnchanged()
            if let error = error as? JSONError { throw StoreError.syntax(path: path, error: error) }
            throw error
        }
        return ScannedStore(path: path, file: file, index: visitor)
    }

    /// Scans bytes held in memory (the journal's customers, as a small store of their own).
    static func scan(held file: MappedFile, ids: [ID], collectAll: Bool = false) throws -> ScannedStore {
        var visitor = StoreIndexVisitor(buffer: file.bytes, requested: RequestedIds(ids), collectAll: collectAll)
        do {
            try JSON.scan(file.bytes, visitor: &visitor)
        } catch let error as JSONError {
            throw StoreError.syntax(path: file.path, error: error)
        }
        return ScannedStore(path: file.path, file: file, index: visitor)
    }

    /// Problems with the top level: root object, schemaVersion 1, products and customers objects.
    func topLevelProblems() -> [StoreProblem] {
        guard index.rootIsObject else {
            return [StoreProblem(path: "(root)", message: "expected an object with schemaVersion, products and customers")]
        }
        var problems: [StoreProblem] = []
        if let range = index.schemaVersion {
            let value = try? JSON.parse(bytes, range: range)
            if case .number(let literal)? = value, Double(literal) == 1 {
                // the version this tool reads
            } else if case .number(let literal)? = value {
                problems.append(StoreProblem(path: "schemaVersion", message: "unsupported version \(literal) (this subs reads version 1)"))
            } else {
                problems.append(StoreProblem(path: "schemaVersion", message: "expected number, found \(value?.typeName ?? "nothing")"))
            }
        } else {
            problems.append(StoreProblem(path: "schemaVersion", message: "required"))
        }
        for (name, range) in [("products", index.products), ("customers", index.customers)] {
            guard let range else {
                problems.append(StoreProblem(path: name, message: "required"))
                continue
            }
            if bytes[range.lowerBound] != UInt8(ascii: "{") {
                let value = try? JSON.parse(bytes, range: range)
                problems.append(StoreProblem(path: name, message: "expected object, found \(value?.typeName ?? "?")"))
            }
        }
        return problems
    }

    /// The catalog, with its problems (an absent or broken `products` gives an empty catalog).
    func catalog(into decoder: inout RecordDecoder) throws -> Catalog {
        guard let range = index.products, bytes[range.lowerBound] == UInt8(ascii: "{") else { return Catalog([]) }
        return decoder.catalog(try value(range))
    }

    func customer(_ span: CustomerSpan, catalog: Catalog, into decoder: inout RecordDecoder) throws -> CustomerRecord? {
        decoder.customer(id: span.id, try value(span.range), catalog: catalog,
                         path: JSONPath.member("customers", span.id))
    }

    /// The customer the i-th requested id names: by key first, else by alias (which must then
    /// belong to one customer only); nil when none.
    func customerSpan(forRequest i: Int, id: ID) throws -> CustomerSpan? {
        if let span = index.byKey[i] { return span }
        let owners = index.byAlias[i]
        if owners.count > 1 {
            let names = owners.map { "'\($0.id)'" }.joined(separator: ", ")
            throw StoreError.invalid(path: path, problems: [StoreProblem(
                path: "customers", message: "alias '\(id)' belongs to several customers: \(names)")])
        }
        return owners.first
    }

    /// The `products` object as stored (present once `topLevelProblems()` is empty).
    func storedProducts() throws -> JSONValue {
        guard let range = index.products else {
            throw StoreError.invalid(path: path, problems: [StoreProblem(path: "products", message: "required")])
        }
        return try value(range)
    }

    func value(_ range: Range<Int>) throws -> JSONValue {
        do {
            return try JSON.parse(bytes, range: range)
        } catch let error as JSONError {
            throw StoreError.syntax(path: path, error: error)
        }
    }
}
