/** A plugin that keeps the statements sent through it, as nodes to compile or explain. */
import type { KyselyPlugin, RootOperationNode } from 'kysely';

export const capturing = () => {
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { nodes, capture };
};
