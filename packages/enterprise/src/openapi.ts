import { enterpriseRoutes } from '@portico/api/enterprise';
import { buildOpenApi, openApiYaml, servedRows } from '@portico/server';

const enterpriseOpenApiInfo = {
  title: 'Portico Enterprise API',
  description:
    'The Portico API as the Enterprise edition serves it: every OSS route plus the license, audit trail, categories, saved views (PostgreSQL) and compliance (OPA Gatekeeper; its violation history in PostgreSQL). Every error is the JSON envelope `{code, message, details, requestId}`.',
};

/** Every row the Enterprise build serves beside the OSS table, in the order the document lists them. */
export const enterpriseRouteRows = enterpriseRoutes;

/** `openapi-enterprise.yaml`: generated from the same schemas the server validates with, like the OSS one. */
export const enterpriseOpenApiYaml = () => openApiYaml(buildOpenApi(servedRows(enterpriseRouteRows), enterpriseOpenApiInfo));
