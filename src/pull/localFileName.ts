/**
 * The one check for every name that becomes a file in the models folder: a URL's last segment, or
 * a file name from a hub's listing (which the hub's owner, or a mirror, writes). Such a name is
 * joined onto a folder, so anything that a file system reads as more than one name is refused:
 * separators of either kind (`..\..\x.gguf` is a path on Windows), a leading dot (`..`, hidden
 * files), a drive or stream colon, control characters, and the names Windows keeps for devices.
 * Returns the reason a name is refused, or null when it is fine.
 */
const windowsDeviceNames = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

export function unsafeFileNameReason(name: string): string | null {
    if (!/\.gguf$/i.test(name))
        return "it is not a .gguf file";
    if (/[\\/]/.test(name))
        return "it holds a path separator";
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(name))
        return "it holds a control character";
    if (name.startsWith("."))
        return "it starts with a dot";
    if (/[:*?"<>|]/.test(name))
        return "it holds a character Windows does not allow in file names";
    if (windowsDeviceNames.test(name) || /[. ]$/.test(name))
        return "Windows reads it as another name";
    if (Buffer.byteLength(name) > 255)
        return "it is longer than file systems allow (255 bytes)";
    return null;
}

/** `name` as it is, or an Error saying why it cannot be a file name (`what`: "the URL's file", "hf:user/repo's file"). */
export function localFileName(name: string, what: string): string {
    const reason = unsafeFileNameReason(name);
    if (reason != null)
        throw new Error(`${what} '${name.slice(0, 200)}' cannot be written into the models folder: ${reason}`);
    return name;
}
