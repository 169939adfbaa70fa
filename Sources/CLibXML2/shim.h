#ifndef MATSITE_CLIBXML2_SHIM_H
#define MATSITE_CLIBXML2_SHIM_H
#include <string.h>
#include <libxml/xmlversion.h>
/*
 * libxml2's encoding.h includes ICU's headers when libxml2 was built with ICU. Swift then
 * sees two definitions of ICU types (the system's and Foundation's bundled copy) and a
 * module that imports both Foundation and this one fails to build. Nothing here uses ICU:
 * only the layout of xmlCharEncodingHandler changes, which Swift code never touches.
 */
#ifdef LIBXML_ICU_ENABLED
#undef LIBXML_ICU_ENABLED
#endif
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>

/*
 * Guards for parsing documents that come from the network (MatsiteCapabilities).
 *
 * The parser context's _private points at one of these. Entity declarations stop the
 * parser at once, so no entity is ever registered, expanded or loaded (billion laughs,
 * external entities); the first error is kept here instead of going to stderr.
 */
typedef struct matsite_xml_guard {
    int entity_declared;
    int have_error;
    int error_line;
    int error_column;
    int error_code;
    char error_message[512];
} matsite_xml_guard;

/* Declared in parserInternals.h, which drags in ICU headers that clash with Foundation's. */
xmlParserCtxtPtr xmlCreateMemoryParserCtxt(const char *buffer, int size);

static inline void matsite_xml_refuse_entity(void *ctx) {
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    if (ctxt == NULL) return;
    matsite_xml_guard *guard = (matsite_xml_guard *)ctxt->_private;
    if (guard != NULL) guard->entity_declared = 1;
    xmlStopParser(ctxt);
}

static inline void matsite_xml_entity_decl(void *ctx, const xmlChar *name, int type,
                                           const xmlChar *publicId, const xmlChar *systemId,
                                           xmlChar *content) {
    (void)name; (void)type; (void)publicId; (void)systemId; (void)content;
    matsite_xml_refuse_entity(ctx);
}

static inline void matsite_xml_unparsed_entity_decl(void *ctx, const xmlChar *name,
                                                    const xmlChar *publicId,
                                                    const xmlChar *systemId,
                                                    const xmlChar *notationName) {
    (void)name; (void)publicId; (void)systemId; (void)notationName;
    matsite_xml_refuse_entity(ctx);
}

/* libxml2 passes ctxt->userData, which is the context itself unless someone changed it. */
static inline void matsite_xml_structured_error(void *userData, xmlErrorPtr error) {
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)userData;
    if (ctxt == NULL || error == NULL || error->level < XML_ERR_ERROR) return;
    matsite_xml_guard *guard = (matsite_xml_guard *)ctxt->_private;
    if (guard == NULL || guard->have_error) return;
    guard->have_error = 1;
    guard->error_line = error->line;
    guard->error_column = error->int2;
    guard->error_code = error->code;
    guard->error_message[0] = 0;
    if (error->message != NULL) {
        strncpy(guard->error_message, error->message, sizeof(guard->error_message) - 1);
        guard->error_message[sizeof(guard->error_message) - 1] = 0;
    }
}

/*
 * Some libxml2 errors (encoding conversion) are raised without a parser context and go to
 * the generic error handler, which prints to stderr. The handler is per thread: call this
 * before each parse on the thread doing it.
 */
static inline void matsite_xml_ignore_generic_error(void *ctx, const char *msg, ...) {
    (void)ctx; (void)msg;
}

static inline void matsite_xml_silence_thread(void) {
    xmlSetGenericErrorFunc(NULL, matsite_xml_ignore_generic_error);
}

/*
 * A parser context over `size` bytes at `buffer` with the given options and the guard
 * installed. The caller frees it with xmlFreeParserCtxt (and ctxt->myDoc with xmlFreeDoc).
 */
static inline xmlParserCtxtPtr matsite_xml_guarded_context(const char *buffer, int size,
                                                           int options,
                                                           matsite_xml_guard *guard) {
    xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(buffer, size);
    if (ctxt == NULL) return NULL;
    xmlCtxtUseOptions(ctxt, options);
    ctxt->_private = guard;
    if (ctxt->sax != NULL) {
        ctxt->sax->entityDecl = matsite_xml_entity_decl;
        ctxt->sax->unparsedEntityDecl = matsite_xml_unparsed_entity_decl;
        ctxt->sax->serror = matsite_xml_structured_error;
        ctxt->sax->warning = NULL;
        ctxt->sax->error = NULL;
        ctxt->sax->fatalError = NULL;
    }
    return ctxt;
}

#endif
