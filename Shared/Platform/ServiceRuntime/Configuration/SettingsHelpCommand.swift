import Timing
import ServiceSettings
import Foundation

/// `--help-settings [--format text|json|markdown]`, answered the same way by
/// every executable: print the declared settings and exit 0, before any
/// variable is read, so it works with an empty or broken environment.
public enum SettingsHelpCommand {
    /// Prints `binaries` and exits 0 when `arguments` ask for the settings;
    /// exits 64 on a bad `--format`; returns otherwise.
    ///
    /// - Parameters:
    ///   - binaries: what to print (a tool with commands passes one per command).
    ///   - arguments: the command line without the executable's name.
    public static func answerIfAsked(_ binaries: [BinarySettings], arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        let format: SettingsHelp.Format?
        do {
            format = try SettingsHelp.requestedFormat(arguments)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(64)
        }
        guard let format else { return }
        FileHandle.standardOutput.write(Data(SettingsHelp.render(binaries, as: format).utf8))
        exit(0)
    }
}
