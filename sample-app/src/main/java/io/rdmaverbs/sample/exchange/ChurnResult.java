package io.rdmaverbs.sample.exchange;

import java.util.List;

/**
 * What one {@link ResourceChurn#churn} did, as the HTTP endpoint returns it.
 *
 * @param created the resources it created, in creation order (names as in {@code /actuator/verbs})
 * @param closed the resources it closed again, newest first (all of them: a failed close fails the call)
 * @param sendStatus the send completion's status
 * @param receiveStatus the receive completion's status
 */
public record ChurnResult(List<String> created, List<String> closed, String sendStatus, String receiveStatus) {
}
