"""The MCP face: Tether as a Model Context Protocol server (``tether mcp``, extra ``mcp``).

``server`` builds the tools and resources on the ``Tether`` facade; ``access`` fixes
whom the server acts as. The CLI command (``cli/mcp``) runs it over stdio or
streamable HTTP on loopback.
"""
