package io.rdmaverbs.spring.boot.messaging.converter;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.util.InvalidMimeTypeException;
import org.springframework.util.MimeType;

/** Content types as the converters compare them: by type and subtype, parameters aside. */
final class ContentTypes {

    static final String OCTET_STREAM = "application/octet-stream";
    static final String TEXT = "text/plain;charset=UTF-8";
    static final String JSON = "application/json";

    private ContentTypes() {
    }

    static @Nullable MimeType parse(@Nullable String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        try {
            return MimeType.valueOf(contentType);
        } catch (InvalidMimeTypeException e) {
            return null;
        }
    }

    /** Whether {@code contentType} is JSON: application/json or a {@code +json} suffix. */
    static boolean isJson(@Nullable String contentType) {
        MimeType type = parse(contentType);
        return type != null && ("json".equals(type.getSubtype()) || "json".equals(type.getSubtypeSuffix()));
    }

    /** The charset the content type names, UTF-8 when it names none. */
    static Charset charset(@Nullable String contentType) {
        MimeType type = parse(contentType);
        try {
            return type == null || type.getCharset() == null ? StandardCharsets.UTF_8 : type.getCharset();
        } catch (RuntimeException unsupported) {
            return StandardCharsets.UTF_8;
        }
    }
}
