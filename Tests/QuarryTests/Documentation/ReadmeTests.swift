// Keeps README.md true: its Swift snippets compile (they live in
// ReadmeSnippets.swift) and run with the results the README implies.

import Foundation
import Quarry
import Testing

@Suite struct ReadmeTests {
    static let projectRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift blocks of a Markdown file.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Drops `import` lines and collapses white space, so that imports and
    /// indentation differences do not matter.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n")
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
            .joined(separator: "\n")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func everyReadmeSnippetIsCompiledByTheTests() throws {
        let readme = try String(contentsOf: Self.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.projectRoot.appendingPathComponent("Tests/QuarryTests/Documentation/ReadmeSnippets.swift"),
            encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme).filter { !$0.contains(".package(url:") }
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(Self.normalized(snippets).contains(Self.normalized(block)), "README snippet not in ReadmeSnippets.swift:\n\(block)")
        }
    }

    @Test func gettingStartedRuns() async throws {
        let directory = try TemporaryDirectory()
        let lines = try await gettingStarted(path: directory.path())
        #expect(lines == ["2 players", "Barbara: 250", "Arthur: 100"])
    }
}
