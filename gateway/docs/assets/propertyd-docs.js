// propertyd-docs.js starts Swagger UI on the /docs page. It lives in a file
// of its own (not inline) so the page's Content-Security-Policy can forbid
// inline scripts. Everything it loads comes from this server.
(function () {
  "use strict";
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    // Never send the document to the public validator service.
    validatorUrl: null,
    // Never load another document named in the page's query string.
    queryConfigEnabled: false,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayOperationId: false,
    displayRequestDuration: true,
    showExtensions: false,
    tryItOutEnabled: false
  });
})();
