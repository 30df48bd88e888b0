internal import CLinux
import Glibc
import KioskCore

/// Finding a hook's program as `execvp` would, and the environment hooks start from.
public enum HookProgram {
    /// Why a hook's program cannot run (missing, not executable, not found in `$PATH`).
    public struct Unusable: Error {
        public let message: String
    }

    /// Where `program` is, as `execvp` would find it: a name with a `/` as it is, else the
    /// first executable regular file of that name in `searchPath` (the hooks' `$PATH`;
    /// `/usr/local/bin:/usr/bin:/bin` when unset).
    public static func resolve(_ program: String, searchPath: String? = nil) -> Result<String, Unusable> {
        if program.contains("/") {
            if let problem = unusable(program) { return .failure(Unusable(message: problem)) }
            return .success(program)
        }
        let pathList = searchPath ?? "/usr/local/bin:/usr/bin:/bin"
        var firstProblem: String?
        for dir in pathList.split(separator: ":", omittingEmptySubsequences: false) {
            let base = dir.isEmpty ? "." : String(dir)
            let candidate = joinPath(base, program)
            guard let problem = unusable(candidate) else { return .success(candidate) }
            if problem != "no such file", firstProblem == nil { firstProblem = "\(candidate): \(problem)" }
        }
        return .failure(Unusable(message: firstProblem ?? "not found in PATH (\(echoed(pathList, limit: 200)))"))
    }

    /// Why `path` cannot be executed, or nil when it can.
    private static func unusable(_ path: String) -> String? {
        var st = stat()
        if stat(path, &st) != 0 { return errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno)) }
        if (st.st_mode & S_IFMT) != S_IFREG { return "not a regular file" }
        if access(path, X_OK) != 0 { return "not executable (\(String(cString: strerror(errno))))" }
        return nil
    }

    /// The kiosk's own environment, as `NAME=value` entries.
    static func processEnvironment() -> [String] {
        var result: [String] = []
        guard let env = CLinux_environ() else { return result }
        var i = 0
        while let entry = env[i] {
            result.append(String(cString: entry))
            i += 1
        }
        return result
    }
}
