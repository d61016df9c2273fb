// TimingSlack: the extra time a timing bound of a test allows under the
// sanitizer scripts (scripts/sanitize-address.sh and sanitize-thread.sh
// export QUARRY_SANITIZER), where the whole suite shares 2 cores with the
// sanitizer's own work and Swift's cooperative pool runs late by seconds.
// The plain run (`swift test`, in CI too) checks the bounds as the issues
// state them; the sanitizer runs look for memory and thread errors.

import Foundation

public enum TimingSlack {
    /// Zero in a plain run; 10 s under a sanitizer script.
    public static let underSanitizers: Duration =
        ProcessInfo.processInfo.environment["QUARRY_SANITIZER"].map { $0.isEmpty ? .zero : .seconds(10) } ?? .zero
}
