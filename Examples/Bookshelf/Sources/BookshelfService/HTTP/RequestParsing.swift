// Request parsing helpers: ids from the path, integers from the query string,
// JSON bodies; every failure is a 400 or 422 APIError that names the culprit.

import Foundation
import Hummingbird

extension Request {
    /// Decodes the JSON body as `T`; the body may hold up to `maximumSize`
    /// bytes (by default the context's `maxUploadSize`).
    ///
    /// - throws: ``APIError`` 400 for a body that is not JSON (or is too
    ///   large: 413), 422 for JSON of the wrong shape (a missing field, a
    ///   string where a number belongs), naming the field.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: some RequestContext, maximumSize: Int? = nil) async throws -> T {
        let limit = maximumSize ?? context.maxUploadSize
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch let error as any HTTPResponseError {
            throw APIError(error.status, "the request body could not be read (limit \(limit) bytes)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            // Foundation reports both bad syntax and a number that does not
            // fit its type (1.5 for an Int) this way, without a coding path.
            if (try? JSONSerialization.jsonObject(with: Data(buffer: buffer), options: [.fragmentsAllowed])) != nil {
                throw APIError.unprocessable("a number in the request body does not fit its field (a fraction or an out-of-range integer)")
            }
            throw APIError.badRequest("the request body is not valid JSON")
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError.unprocessable("invalid value for `\(context.codingPath.jsonPath)`")
        } catch let DecodingError.keyNotFound(key, context) {
            throw APIError.unprocessable("missing field `\((context.codingPath + [key]).jsonPath)`")
        } catch let DecodingError.valueNotFound(_, context) {
            throw APIError.unprocessable("field `\(context.codingPath.jsonPath)` must not be null")
        } catch let DecodingError.typeMismatch(type, context) {
            throw APIError.unprocessable("field `\(context.codingPath.jsonPath)` must be \(Self.jsonTypeName(type))")
        } catch {
            throw APIError.badRequest("the request body could not be decoded")
        }
    }

    /// The name of a Swift type as a JSON client would say it.
    static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") && !name.contains(":") { return "an array" }
            return "an object"
        }
    }

    /// An optional integer query parameter, within `range`.
    ///
    /// - throws: ``APIError`` 400 when the parameter is there but is not an
    ///   integer in `range`.
    func queryInt(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = uri.queryParameters.get(name) else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw APIError.badRequest("query parameter `\(name)` must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return value
    }

    /// An optional query parameter that is a database id (a positive integer).
    func queryID(_ name: String) throws -> Int64? {
        guard let raw = uri.queryParameters.get(name) else { return nil }
        guard let value = Int64(raw), value > 0 else {
            throw APIError.badRequest("query parameter `\(name)` must be a positive integer id, got '\(raw)'")
        }
        return value
    }

    /// An optional string query parameter.
    func queryString(_ name: String) -> String? {
        uri.queryParameters.get(name)
    }
}

extension RequestContext {
    /// The positive integer id in the path parameter `name`.
    ///
    /// - throws: ``APIError`` 400 when it is not a positive integer.
    func pathID(_ name: String = "id") throws -> Int64 {
        let raw = parameters.get(name) ?? ""
        guard let value = Int64(raw), value > 0 else {
            throw APIError.badRequest("`\(name)` must be a positive integer id, got '\(raw)'")
        }
        return value
    }
}

extension [any CodingKey] {
    /// `a.b[0].c`, for error messages.
    var jsonPath: String {
        var path = ""
        for key in self {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path.isEmpty ? "(body)" : path
    }
}

extension Data {
    /// The readable bytes of a NIO buffer.
    init(buffer: ByteBuffer) {
        self.init(buffer.readableBytesView)
    }
}
