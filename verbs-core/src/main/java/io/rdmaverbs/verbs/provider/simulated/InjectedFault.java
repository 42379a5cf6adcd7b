package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.error.Errno;

/**
 * A failure the {@link FaultPlan} injected.
 *
 * @param verb the libibverbs name of the verb that failed ({@code ibv_create_cq})
 * @param call the provider call it was, counted over all verbs from 1 since the plan was created or reset
 * @param errno the errno the verb failed with
 * @param deviceFatal whether the device went fatal at that call ({@link FaultPlan#deviceFatalAt})
 */
public record InjectedFault(String verb, long call, Errno errno, boolean deviceFatal) {
}
