package io.rdmaverbs.sample.exchange;

/**
 * What one exchange did, as the HTTP endpoint returns it.
 *
 * @param transport RC or XRC
 * @param sent the message sent
 * @param received what arrived in the receive buffer
 * @param bytes the receive completion's byte count
 * @param sendStatus the send completion's status
 * @param receiveStatus the receive completion's status
 * @param completionEvents events taken from the completion channel (0 when completions were polled)
 * @param acknowledged whether every event was acknowledged
 * @param micros wall time from posting to the last completion
 */
public record ExchangeResult(String transport, String sent, String received, int bytes, String sendStatus,
        String receiveStatus, int completionEvents, boolean acknowledged, long micros) {
}
