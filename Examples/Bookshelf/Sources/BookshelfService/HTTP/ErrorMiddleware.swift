// ErrorMiddleware: turns every error a route throws into a JSON APIError
// response; logs database and unexpected errors, never sends them to clients.

import Foundation
import Hummingbird
import Logging
import Quarry

/// Catches whatever the routes (and the router's own "not found") throw and
/// answers with an ``APIError`` JSON body:
///
/// - ``APIError`` as it is;
/// - Hummingbird's `HTTPError` (unknown route, body too large…) with its status;
/// - Quarry constraint violations: unique or foreign key → 409, CHECK or
///   NOT NULL → 422; text PostgreSQL cannot store (a NUL) → 422;
///   `RecordError.recordNotFound` → 404;
/// - the database unreachable (a lost connection, a server restarting:
///   `isConnectionError`) or too busy (no free connection in time, a lock
///   held too long: `isBusy`) → 503, so that clients and load balancers
///   retry later; the request's transaction did not commit;
/// - a lost `COMMIT` (`isCommitOutcomeUnknown`) → 500 saying that the
///   outcome is unknown: the client must check before retrying;
/// - anything else → 500 "internal error", with the details logged only.
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Makes the middleware.
    public init() {}

    /// PostgreSQL's SQLSTATEs for text it cannot store: `22021`
    /// (character_not_in_repertoire, a NUL) and `22P05` (untranslatable_character).
    static var unstorableTextStates: Set<String> { ["22021", "22P05"] }

    /// Runs the rest of the chain and converts its errors.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, request: request, logger: context.logger)
            return try apiError.response(from: request, context: context)
        }
    }

    /// The client-facing error for `error`; logs what the client does not see.
    static func apiError(for error: any Error, request: Request, logger: Logger) -> APIError {
        let route = "\(request.method) \(request.uri.path)"
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            return APIError(error.status, error.body ?? error.status.reasonPhrase)
        case let error as DatabaseError:
            // The description holds the SQL: log it, never send it.
            if error.isUniqueConstraintViolation {
                logger.info("unique constraint violation", metadata: ["route": "\(route)", "error": "\(error)"])
                return .conflict("a record with the same unique value already exists")
            }
            if error.isForeignKeyViolation {
                logger.info("foreign key violation", metadata: ["route": "\(route)", "error": "\(error)"])
                return .conflict("the request refers to a record that does not exist, or the record is still referenced")
            }
            if error.isCheckConstraintViolation || error.isNotNullConstraintViolation {
                logger.info("constraint violation", metadata: ["route": "\(route)", "error": "\(error)"])
                return .unprocessable("a value is out of its allowed range")
            }
            if error.isCommitOutcomeUnknown {
                logger.error("commit outcome unknown", metadata: ["route": "\(route)", "error": "\(error)"])
                return APIError(.internalServerError, "the outcome of the request is unknown: check before retrying")
            }
            if error.isConnectionError || error.isBusy {
                logger.error("database unavailable", metadata: ["route": "\(route)", "error": "\(error)"])
                return APIError(.serviceUnavailable, "the service is temporarily unavailable: retry later")
            }
            if let sqlState = error.sqlState, Self.unstorableTextStates.contains(sqlState) {
                // PostgreSQL text cannot hold NUL (SQLite's can): bad input, not a failure.
                logger.info("unstorable text", metadata: ["route": "\(route)", "error": "\(error)"])
                return .unprocessable("a text value holds a character the database cannot store (NUL)")
            }
            logger.error("database error", metadata: ["route": "\(route)", "error": "\(error)"])
            return APIError(.internalServerError, "internal error")
        case RecordError.recordNotFound(let table, _):
            return .notFound("no such \(table)")
        case let error as any HTTPResponseError:
            return APIError(error.status, error.status.reasonPhrase)
        default:
            logger.error("unexpected error", metadata: ["route": "\(route)", "error": "\(String(reflecting: error))"])
            return APIError(.internalServerError, "internal error")
        }
    }
}
