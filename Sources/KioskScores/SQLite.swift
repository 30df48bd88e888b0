internal import CSQLite
import Glibc
import KioskCore
import KioskPlatform
import Synchronization

/// A failed SQLite call: what the store was doing, on which file, SQLite's (extended) code and
/// message, and errno where the failure came from the system.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var context: String
    public var path: String
    public var code: Int32
    public var message: String
    /// The system error behind an I/O failure, 0 when there was none.
    public var errno: Int32

    /// The primary result code (`SQLITE_FULL`, `SQLITE_CORRUPT`...).
    public var primary: Int32 { code & 0xFF }
    /// The file is not a database or is damaged.
    public var isCorrupt: Bool { primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT }
    /// The disk is full.
    public var isFull: Bool { primary == SQLITE_FULL }

    public var description: String {
        var text = "\(echoed(path, limit: 200)): \(context): \(message) (SQLite \(code)"
        if errno != 0 { text += ", errno \(errno): \(String(cString: strerror(errno)))" }
        return text + ")"
    }
}

/// One SQLite connection, used from one thread at a time.
final class SQLiteDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    /// Opens (and with `create`, creates) the file; read-only opens never write.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws(SQLiteError) {
        self.path = path
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // One connection per thread: no mutex needed inside SQLite.
        flags |= SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        if rc != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let err = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            throw SQLiteError(context: "open", path: path, code: rc, message: message, errno: err)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Kept alive as long as the handle: SQLite calls back into it.
    private var busyPolicy: BusyPolicy?

    /// Has `policy` decide how long a statement waits for another connection's lock (instead of
    /// `PRAGMA busy_timeout`).
    func setBusyPolicy(_ policy: BusyPolicy) {
        busyPolicy = policy
        sqlite3_busy_handler(handle, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<BusyPolicy>.fromOpaque(context).takeUnretainedValue().retry(after: attempts) ? 1 : 0
        }, Unmanaged.passUnretained(policy).toOpaque())
    }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func error(_ context: String, _ rc: Int32) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return SQLiteError(context: context, path: path, code: rc, message: message,
                           errno: handle.map { sqlite3_system_errno($0) } ?? 0)
    }

    /// Runs statements that return no rows we need.
    func execute(context: String? = nil, _ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(context ?? Self.summary(sql), rc) }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`: the write lock from the start),
    /// committed when it returns and rolled back when it throws.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The start of a statement, for messages: its first line, at most 40 characters.
    static func summary(_ sql: String) -> String {
        String((sql.split(separator: "\n").first ?? "").prefix(40))
    }

    /// Runs one statement with `bindings` and returns its rows.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        var stmt: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK else { throw error(Self.summary(sql), rc) }
        defer { sqlite3_finalize(stmt) }
        for (i, value) in bindings.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .null: rc = sqlite3_bind_null(stmt, index)
            case .int(let v): rc = sqlite3_bind_int64(stmt, index, v)
            case .double(let v): rc = sqlite3_bind_double(stmt, index, v)
            case .text(let v): rc = sqlite3_bind_text(stmt, index, v, -1, SQLiteDatabase.transient)
            }
            guard rc == SQLITE_OK else { throw error("bind", rc) }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(Self.summary(sql), rc) }
            var row: [SQLiteValue] = []
            for c in 0..<sqlite3_column_count(stmt) {
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(stmt, c)))
                case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(stmt, c)))
                case SQLITE_NULL: row.append(.null)
                default: row.append(.text(sqlite3_column_text(stmt, c).map { String(cString: $0) } ?? ""))
                }
            }
            rows.append(row)
        }
        return rows
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// SQLite copies bound text at once.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// How long the kiosk's connection waits for a lock another process holds: up to `timeout`
/// per statement; once stopping (`stop(by:)`, from any thread), at most `stopping` and never
/// past the deadline, so an exit does not wait for someone else's transaction.
public final class BusyPolicy: Sendable {
    public let timeout: Duration
    public let stopping: Duration
    /// Monotonic microseconds; `Int64.max` while not stopping.
    private let deadline = Atomic<Int64>(.max)
    private static let pollInterval = Duration.milliseconds(10)

    public init(timeout: Duration = .seconds(5), stopping: Duration = .milliseconds(200)) {
        self.timeout = timeout
        self.stopping = stopping
    }

    /// From now on, waits are short and none goes past `deadline` (the monotonic clock).
    public func stop(by deadline: TimeStamp) { self.deadline.store(deadline.microseconds, ordering: .relaxed) }

    public var isStopping: Bool { deadline.load(ordering: .relaxed) != .max }

    /// Whether the stop's deadline has passed.
    public var isPastDeadline: Bool { EventLoop.now().microseconds >= deadline.load(ordering: .relaxed) }

    /// SQLite's busy handler: true to wait a little and try again after `attempts` tries.
    func retry(after attempts: Int32) -> Bool {
        let waited = Self.pollInterval * Int(attempts)
        if isStopping {
            if waited >= stopping || isPastDeadline { return false }
        } else if waited >= timeout {
            return false
        }
        usleep(UInt32(Self.pollInterval.wholeMicroseconds))
        return true
    }
}

/// A value in or out of SQLite.
enum SQLiteValue: Equatable, Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)

    var int: Int64 {
        switch self {
        case .int(let v): v
        // A REAL stored in an INTEGER column (an edited file) may be out of range or NaN:
        // Int64(v) would trap.
        case .double(let v): v.isNaN ? 0 : v >= 0x1p63 ? .max : v < -0x1p63 ? .min : Int64(v)
        case .text(let t): Int64(t) ?? 0
        case .null: 0
        }
    }

    var double: Double {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .text(let t): Double(t) ?? 0
        case .null: 0
        }
    }

    var text: String {
        switch self {
        case .int(let v): String(v)
        case .double(let v): String(v)
        case .text(let t): t
        case .null: ""
        }
    }
}
