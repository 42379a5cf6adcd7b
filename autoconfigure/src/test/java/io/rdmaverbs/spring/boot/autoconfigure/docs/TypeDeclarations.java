package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A class, record, interface or enum an example declares at its top level, annotations first
 * ({@code @RdmaEndpoint("orders") class OrderEndpoint { ... }}): a member of the example's class, made
 * {@code static} so that a container can create it as a page's reader would.
 */
final class TypeDeclarations {

    /** Annotations (with arguments), modifiers, then the kind of type. */
    static final String PATTERN = "^(@[\\w.]+(\\([^)]*\\))?\\s*)*((public|private|protected|static|final|abstract)\\s+)*"
            + "(class|record|interface|enum)\\s.*";

    private static final Pattern DECLARATION = Pattern.compile(PATTERN, Pattern.DOTALL);
    private static final Pattern CLASS_KEYWORD = Pattern.compile("(^|\\s)class\\s");

    private TypeDeclarations() {
    }

    static boolean isDeclaration(String code) {
        return DECLARATION.matcher(code).matches();
    }

    /** The lines of a declaration, its class made {@code static} (records, interfaces and enums are already). */
    static List<String> asMember(List<String> lines) {
        List<String> out = new ArrayList<>(lines);
        for (int i = 0; i < out.size(); i++) {
            String line = out.get(i);
            if (line.strip().startsWith("@")) {
                continue;
            }
            if (CLASS_KEYWORD.matcher(line).find() && !line.matches(".*\\bstatic\\b.*")) {
                out.set(i, CLASS_KEYWORD.matcher(line).replaceFirst("$1static class "));
            }
            break;
        }
        return out;
    }
}
