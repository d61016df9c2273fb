// The concurrent-writer mode of the process helper: a second DatabasePool on
// the same file, in another process. (To be written.)

import Foundation
import Quarry

func runConcurrentWriter(_ arguments: [String]) -> Int32 {
    FileHandle.standardError.write(Data("concurrent-writer: not written yet\n".utf8))
    return 70
}
