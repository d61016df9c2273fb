// The crash-writer mode of the process helper: writes records in a loop and
// prints every commit it has seen acknowledged. (To be written.)

import Foundation
import Quarry

func runCrashWriter(_ arguments: [String]) -> Int32 {
    FileHandle.standardError.write(Data("crash-writer: not written yet\n".utf8))
    return 70
}
