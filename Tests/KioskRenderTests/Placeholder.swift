import Testing
@testable import KioskRender
