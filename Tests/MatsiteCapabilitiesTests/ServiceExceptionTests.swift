import Testing

@testable import MatsiteCapabilities

@Suite("Service exceptions")
struct ServiceExceptionTests {
    @Test("a WMS 1.3.0 exception report gives its code and text")
    func wms130() {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc">
              <ServiceException code="InvalidDimensionValue" locator="time">
                Time 2030-01-01 is out of range
              </ServiceException>
            </ServiceExceptionReport>
            """
        #expect(ServiceException.message(in: body.bytes) == "InvalidDimensionValue (time): Time 2030-01-01 is out of range")
    }

    @Test("a WMS 1.1.1 exception report with its DOCTYPE is read without fetching the DTD")
    func wms111() throws {
        let listener = try #require(LocalListener())
        let body = """
            <?xml version='1.0' encoding="ISO-8859-1" standalone="no" ?>
            <!DOCTYPE ServiceExceptionReport SYSTEM "http://127.0.0.1:\(listener.port)/exception_1_1_1.dtd">
            <ServiceExceptionReport version="1.1.1">
            <ServiceException>
            msWMSLoadGetMapParams(): WMS server error. Invalid layer(s) given in the LAYERS parameter.
            </ServiceException>
            <ServiceException code="LayerNotDefined">second</ServiceException>
            </ServiceExceptionReport>
            """
        #expect(
            ServiceException.message(in: body.bytes)
                == "msWMSLoadGetMapParams(): WMS server error. Invalid layer(s) given in the LAYERS parameter.; LayerNotDefined: second")
        #expect(!listener.wasConnected)
    }

    @Test("an OWS exception report (WMTS) gives code, locator and text")
    func ows() {
        let body = """
            <ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="1.1.0">
              <ows:Exception exceptionCode="TileOutOfRange" locator="TILEROW">
                <ows:ExceptionText>TileRow 99 is out of range</ows:ExceptionText>
              </ows:Exception>
            </ows:ExceptionReport>
            """
        let exceptions = ServiceException.parse(body.bytes)
        #expect(exceptions == [ServiceException(code: "TileOutOfRange", locator: "TILEROW", text: "TileRow 99 is out of range")])
    }

    @Test(
        "anything else is not an exception",
        arguments: [
            "", "<html><body>error</body></html>", "<Capabilities xmlns=\"http://www.opengis.net/wmts/1.0\"/>",
            "\u{89}PNG\r\n", "<ServiceExceptionReport", "<!DOCTYPE a [<!ENTITY x \"y\">]><ServiceExceptionReport/>",
        ])
    func notAnException(body: String) {
        #expect(ServiceException.message(in: body.bytes) == nil)
    }

    @Test("an empty exception report still says that the server failed")
    func empty() {
        #expect(ServiceException.message(in: "<ServiceExceptionReport/>".bytes) == "the server reported an exception without a message")
    }

    @Test(
        "an exception says there is no data for the time when its code is InvalidDimensionValue or TileOutOfRange, its locator the time, or its words say no data",
        arguments: [
            (ServiceException(code: "InvalidDimensionValue", locator: "time", text: "Time 2030-01-01 is out of range"), true),
            (ServiceException(code: "TileOutOfRange", locator: "TILEROW", text: "TileRow 99 is out of range"), true),
            (ServiceException(code: "InvalidParameterValue", locator: "TIME", text: "bad"), true),
            (ServiceException(code: nil, locator: nil, text: "msWMSDraw(): No data for this time"), true),
            (ServiceException(code: "LayerNotDefined", locator: "layers", text: "radar"), false),
            (ServiceException(code: "InvalidParameterValue", locator: "request", text: "Unknown request"), false),
            (ServiceException(code: nil, locator: nil, text: "msWMSLoadGetMapParams(): WMS server error."), false),
        ])
    func noDataForTime(exception: ServiceException, says: Bool) {
        #expect(exception.saysNoDataForTime == says)
    }
}
