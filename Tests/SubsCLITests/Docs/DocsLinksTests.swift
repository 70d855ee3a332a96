// The documentation is the README (the front door) and the pages it links (docs/*.md,
// CONTRIBUTING.md), which hold the reference moved out of it. A link between them must land: the
// file exists and, for `#anchor`, the page has a heading of that anchor (GitHub's rule: lower
// case, punctuation dropped, spaces to hyphens, a repeated heading gets -1, -2…). A section moved
// or renamed without its links fails here.

import Foundation
import XCTest

final class DocsLinksTests: XCTestCase {
    /// GitHub's anchor of a heading's text.
    static func anchor(_ heading: String) -> String {
        var slug = ""
        for character in heading.trimmingCharacters(in: .whitespaces).lowercased() {
            if character == " " {
                slug.append("-")
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                slug.append(character)
            }
        }
        return slug
    }

    /// The anchors of a page's headings, outside code blocks.
    static func anchors(of text: String) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#"), let space = line.firstIndex(of: " "),
                  line[..<space].allSatisfy({ $0 == "#" }) else { continue }
            let base = anchor(String(line[line.index(after: space)...]))
            if let count = seen[base] {
                seen[base] = count + 1
                anchors.insert("\(base)-\(count + 1)")
            } else {
                seen[base] = 0
                anchors.insert(base)
            }
        }
        return anchors
    }

    /// `](target)` of a page, outside code blocks, with the line it is on.
    static func links(of text: String) -> [(line: Int, target: String)] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var links: [(Int, String)] = []
        var inFence = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence else { continue }
            let string = String(line)
            for match in pattern.matches(in: string, range: NSRange(string.startIndex..., in: string)) {
                if let range = Range(match.range(at: 1), in: string) { links.append((number + 1, String(string[range]))) }
            }
        }
        return links
    }

    func testEveryLinkBetweenThePagesLands() throws {
        let pages = try ReadmeExamplesTests.documents()
        var checked = 0
        for page in pages {
            let text = try String(contentsOfFile: Repo.path(page), encoding: .utf8)
            let folder = (page as NSString).deletingLastPathComponent
            for (line, target) in Self.links(of: text) {
                if target.range(of: "^[a-z]+:", options: .regularExpression) != nil { continue }   // https:, mailto:
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let linked = path.isEmpty ? page : ((folder as NSString).appendingPathComponent(path) as NSString).standardizingPath
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: Repo.path(linked), isDirectory: &isDirectory) else {
                    XCTFail("\(page):\(line): \(target): no file \(linked)")
                    continue
                }
                checked += 1
                guard parts.count == 2 else { continue }
                let anchor = String(parts[1])
                XCTAssertTrue(linked.hasSuffix(".md"), "\(page):\(line): \(target): an anchor into a page that is not Markdown")
                let anchors = Self.anchors(of: try String(contentsOfFile: Repo.path(linked), encoding: .utf8))
                XCTAssertTrue(anchors.contains(anchor), "\(page):\(line): \(target): \(linked) has no heading '#\(anchor)'")
            }
        }
        XCTAssertGreaterThan(checked, 50, "the pages' links were read")
    }

    func testTheAnchorRuleIsGitHubs() {
        XCTAssertEqual(Self.anchor("`serve` — the store over the subs REST API"), "serve--the-store-over-the-subs-rest-api")
        XCTAssertEqual(Self.anchor("`--remote URL` — the same commands against a server"), "--remote-url--the-same-commands-against-a-server")
        XCTAssertEqual(Self.anchor("The release tarball's start-up"), "the-release-tarballs-start-up")
        XCTAssertEqual(Self.anchors(of: "## `find`\n### `find`\n```\n# not a heading\n```\n"), ["find", "find-1"])
    }

    /// The README is the front door: every page of the reference is reachable from it, and the
    /// reference itself lives in those pages (a section added to the README belongs in one of them).
    func testTheReadmeLinksEveryPageAndStaysShort() throws {
        let readme = try String(contentsOfFile: Repo.path("README.md"), encoding: .utf8)
        let targets = Set(Self.links(of: readme).map { String($0.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]) })
        for page in try ReadmeExamplesTests.documents() where page != "README.md" {
            XCTAssertTrue(targets.contains(page), "README.md does not link \(page)")
        }
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(lines, 250, "README.md has \(lines) lines: reference material goes to docs/ or CONTRIBUTING.md")
    }
}
