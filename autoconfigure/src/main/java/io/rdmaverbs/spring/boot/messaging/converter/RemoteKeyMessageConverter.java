package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.reflect.Type;

import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteKey;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RemoteKey}, the peer's way to memory this side exported ({@code Session.export}): written as its
 * {@value RemoteKey#BYTES} packed bytes with the content type {@value #CONTENT_TYPE}, so that an endpoint
 * may return the key and the caller open it ({@code RdmaOperations.requestRemoteRegion}). Reads a
 * {@code RemoteKey} from a message of that content type, of {@code application/octet-stream} or of none (the
 * packed bytes an endpoint returned as a {@code byte[]}); the key's own magic and version are checked.
 */
public final class RemoteKeyMessageConverter implements RdmaMessageConverter {

    /** What a packed remote key is, in the {@code content-type} header. */
    public static final String CONTENT_TYPE = "application/vnd.rdmaverbs.remote-key";

    @Override
    public boolean canWrite(Object payload) {
        return payload instanceof RemoteKey;
    }

    @Override
    public boolean canRead(@Nullable String contentType, Class<?> type) {
        return type == RemoteKey.class && (contentType == null || ContentTypes.is(contentType, CONTENT_TYPE)
                || ContentTypes.is(contentType, ContentTypes.OCTET_STREAM));
    }

    @Override
    public Message write(Object payload) {
        return Message.of(((RemoteKey) payload).toByteArray())
                .withHeader(RdmaMessageHeaders.CONTENT_TYPE, CONTENT_TYPE);
    }

    @Override
    public Object read(Message message, Type type) {
        try {
            return RemoteKey.unpack(message.toByteArray());
        } catch (IllegalArgumentException e) {
            throw new RdmaMessageConversionException("the payload is no remote key: " + e.getMessage(), e);
        }
    }
}
