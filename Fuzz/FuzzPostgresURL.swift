// FuzzPostgresURL: libFuzzer target for the PostgreSQL connection URL parser,
// PostgresConfiguration(url:) in Sources/QuarryPostgres/PostgresConfiguration.swift.
// Any input must give a configuration or a PostgresURLError, never a trap;
// and, as documented, a parsed configuration without a password gives a
// description that parses back to an equal configuration.

import Foundation
import QuarryPostgres

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostgresURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let url = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let configuration: PostgresConfiguration
    do {
        configuration = try PostgresConfiguration(url: url)
    } catch {
        precondition(!error.message.isEmpty, "a PostgresURLError without a message")
        return 0
    }
    let description = configuration.description
    if let password = configuration.password {
        // The description hides the password.
        precondition(description.contains(":***@"), "the description does not hide the password")
        _ = password
    } else {
        do {
            let reparsed = try PostgresConfiguration(url: description)
            precondition(reparsed == configuration, "the description parses to another configuration: \(description)")
        } catch {
            preconditionFailure("the description does not parse back: \(description): \(error.message)")
        }
    }
    return 0
}
