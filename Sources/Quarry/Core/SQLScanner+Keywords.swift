// SQLScanner+Keywords: the leading keywords of a statement, after white
// space and comments, for the code that classifies statements without
// tokenizing them whole: ServerTransactionChange.swift (a server's
// transaction control) and SQLite/Database+CommitOutcome.swift (SQLite's commits).

extension SQLScanner {
    /// Up to `count` leading keywords of `sql`, uppercased: runs of ASCII
    /// letters and underscores, with the white space and the comments before
    /// and between them skipped (`-- …` up to the end of the line, and
    /// `/* … */`, which nest in PostgreSQL but not in SQLite). It stops at
    /// anything else: a quote, a digit, a parenthesis, a `;`, an unterminated
    /// comment.
    static func leadingKeywords(_ sql: String, count: Int, nestedComments: Bool = true) -> [String] {
        var words: [String] = []
        var bytes = sql.utf8[...]
        while words.count < count {
            skipSpaceAndComments(&bytes, nestedComments: nestedComments)
            let word = bytes.prefix(while: { isLetter($0) })
            guard !word.isEmpty else { break }
            words.append(String(decoding: word, as: UTF8.self).uppercased())
            bytes = bytes[word.endIndex...]
            // A keyword must end where a word can end (`BEGIN1` is no keyword).
            if let next = bytes.first, next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") || next == UInt8(ascii: "$") {
                words.removeLast()
                break
            }
        }
        return words
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    /// Drops the white space and the comments at the start of `bytes`; an
    /// unterminated block comment is dropped whole (no keyword follows it).
    private static func skipSpaceAndComments(_ bytes: inout Substring.UTF8View, nestedComments: Bool) {
        let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), dash = UInt8(ascii: "-")
        while let byte = bytes.first {
            if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                bytes = bytes.dropFirst()
            } else if byte == dash, bytes.dropFirst().first == dash {
                bytes = bytes.drop(while: { $0 != 0x0A && $0 != 0x0D })
            } else if byte == slash, bytes.dropFirst().first == star {
                bytes = bytes.dropFirst(2)
                var depth = 1
                while depth > 0, let current = bytes.first {
                    let next = bytes.dropFirst().first
                    if nestedComments, current == slash, next == star {
                        depth += 1
                        bytes = bytes.dropFirst(2)
                    } else if current == star, next == slash {
                        depth -= 1
                        bytes = bytes.dropFirst(2)
                    } else {
                        bytes = bytes.dropFirst()
                    }
                }
            } else {
                return
            }
        }
    }
}
