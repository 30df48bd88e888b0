/// `name` inside `directory`, with one slash between them whether or not `directory` ends in one.
public func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}
