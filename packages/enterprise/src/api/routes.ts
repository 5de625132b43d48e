// The Enterprise routes are part of the wire contract (`@portico/api/enterprise`, shared with the SDK).
export { enterpriseRoutes, type EnterpriseRouteDef, type EnterpriseRouteId } from '@portico/api/enterprise';
