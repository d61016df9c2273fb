// Keeps the DocC article "Backends" true: every requirement it shows in its
// Swift blocks is declared, word for word, in the seam's source files, and
// every requirement of those protocols is shown.

import Foundation
import Testing

@Suite("The Backends article")
struct BackendsArticleTests {
    static let projectRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func read(_ path: String) throws -> String {
        try String(contentsOf: Self.projectRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The requirement lines (`func …`, `var …`) of the article's Swift blocks.
    private func articleRequirements() throws -> [String] {
        let article = try read("Sources/Quarry/Quarry.docc/Backends.md")
        var inSwift = false
        var lines: [String] = []
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inSwift = line == "```swift"
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inSwift, trimmed.hasPrefix("func ") || trimmed.hasPrefix("var ") { lines.append(trimmed) }
        }
        return lines
    }

    /// The requirement lines of the seam files' protocols.
    private func sourceRequirements() throws -> [String] {
        var lines: [String] = []
        for path in [
            "Sources/Quarry/Core/DatabaseConnection.swift", "Sources/Quarry/Core/DatabaseServerConnection.swift",
            "Sources/Quarry/Core/RowSource.swift",
        ] {
            var inProtocol = false
            for line in try read(path).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("protocol ") || line.hasPrefix("package protocol ") { inProtocol = true; continue }
                if line == "}" { inProtocol = false; continue }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if inProtocol, trimmed.hasPrefix("func ") || trimmed.hasPrefix("var ") { lines.append(trimmed) }
            }
        }
        return lines
    }

    @Test func theArticleShowsEveryRequirementAsDeclared() throws {
        let shown = try articleRequirements()
        let declared = try sourceRequirements()
        #expect(declared.count >= 25, "the seam's protocols were not found: \(declared)")
        #expect(Set(shown).subtracting(declared).sorted() == [], "shown in the article, not declared")
        #expect(Set(declared).subtracting(shown).sorted() == [], "declared, not shown in the article")
    }
}
