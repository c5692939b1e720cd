// A shell prompt before a command, as people paste transcripts into tickets. One pattern, for the sniffer (is this a
// transcript?) and the transcript reader (where does a command start?):
//   [root@node7 ~]# crictl ps          user@host:~$ docker ps        $ containerd -v        # docker info
//   .:/home/kevin_simons$ docker inspect de3577202e88               (venv) host% journalctl -u kubelet
//   ~/incident$ time docker ps         PS C:\Users\me> kubectl describe node n1

/** The prompt itself (no anchor, no command): a bracketed user@host, a user@host[:path], a path (`.:/home/me`, `~/x`),
 *  `(env) …`, PowerShell's `PS C:\…>`, or a bare `$`, `#`, `%` or `>`. */
export const PROMPT_HEAD = String.raw`(?:\[[^\]\n]{1,80}\]\s?[#$]|\([\w.-]{1,40}\)\s?\S{0,80}[#$%>]|[\w.-]{0,64}@[\w.-]+(?::\S{0,160})?[#$%]|[.~/:]\S{0,160}?[#$%]|PS [A-Za-z]:\\[^>]{0,160}>|[#$%>])`;

/** Commands people run on a node while it flaps (the sniffer wants one of them after a prompt). */
export const NODE_COMMANDS = String.raw`(?:docker|crictl|ctr|nerdctl|containerd|runc|crio|podman|kubectl|oc|systemctl|journalctl|uname|uptime|free|cat|ps|top|kill|pkill|curl|strace|ls|df|du|mount|dmesg|grep|tail|head|lsof|pstree|iostat|vmstat|ss|netstat|date|talosctl|microk8s|k3s|eksctl|gcloud|aws|az)`;
