import { PASSWORD_MIN } from '@rtcscope/protocol';

/** A field for a new password, labelled with the server's rule for it, as every form that sets one asks it. */
export function NewPassword({
  label,
  value,
  onChange,
  autoFocus = false,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <label>
      {label} (at least {PASSWORD_MIN} characters){' '}
      <input
        type="password"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        minLength={PASSWORD_MIN}
        maxLength={256}
        autoComplete="new-password"
        required
        autoFocus={autoFocus}
      />
    </label>
  );
}
