// Demo behaviour: how a project's demo providers behave in the sandbox per segment, kept
// in payments.demo_behaviours, served by DemoBehaviourService and played by the demo connector.
export { createDemoBehaviourStore, type DemoBehaviourStore } from './store.js';
export { demoBehaviourRoutes } from './service.js';
