// APIError: the one error type the service answers with, and its JSON body.

import Foundation
import Hummingbird

/// An error the client sees: an HTTP status and a message, sent as
/// `{"error": {"status": 404, "message": "no book with id 7"}}`.
///
/// Messages are written for clients: they never hold SQL or database
/// details (those are logged instead).
public struct APIError: Error, Sendable, Equatable, HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// What went wrong, for the client.
    public var message: String

    /// Makes an error with a status and a message.
    public init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// 400: a request the service cannot parse (bad JSON, bad query parameter).
    public static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
    /// 404: no such resource.
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    /// 409: the request conflicts with stored data (duplicate ISBN, missing parent…).
    public static func conflict(_ message: String) -> APIError { APIError(.conflict, message) }
    /// 422: well-formed JSON whose values are not acceptable.
    public static func unprocessable(_ message: String) -> APIError { APIError(.unprocessableContent, message) }

    /// The JSON body: `{"error": {"status": …, "message": …}}`.
    public struct Body: Codable, Sendable, Equatable {
        /// The error itself.
        public struct Detail: Codable, Sendable, Equatable {
            /// The HTTP status code.
            public var status: Int
            /// The message.
            public var message: String
        }
        /// The error.
        public var error: Detail
    }

    /// The body of this error.
    public var body: Body { Body(error: .init(status: status.code, message: message)) }

    /// The JSON response for this error.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
