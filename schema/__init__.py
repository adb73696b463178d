"""The GraphQL schema: types, inputs, payload unions, context and permissions."""
